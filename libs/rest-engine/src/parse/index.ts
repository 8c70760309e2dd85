export * from './ast';
export { MAX_NESTING } from './cursor';
export { parseSelect } from './select.parser';
export { parseOrder, parseColumnList } from './order.parser';
export { parseLogicParam } from './logic.parser';
export { parsePreferences } from './prefer.parser';
export { parseRangeHeader, parseCount } from './range.parser';
export { decodeQueryString } from './query-string';
export { parseRequest, type ParseInput } from './request.parser';
