import { Injectable } from '@nestjs/common';
import { createTransport } from 'nodemailer';
import { EmailMessage } from '@baseplate/jobs';
import { Sender, SmtpTarget, smtpTransportOptions } from './delivery-plan';

/** The network side of delivery: one SMTP connection per message, closed after it. */
@Injectable()
export class SmtpSender {
  async send(target: SmtpTarget, from: Sender, message: EmailMessage): Promise<void> {
    const transport = createTransport(smtpTransportOptions(target));
    try {
      await transport.sendMail({
        from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        html: message.html,
      });
    } finally {
      transport.close();
    }
  }
}
