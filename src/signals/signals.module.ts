import { Module } from '@nestjs/common';
import { UsersModule } from '../users/users.module.js';
import { IdpSignalsController, ReceiveController } from './api/receiver.controller.js';
import { TransmitterConfigurationController } from './api/transmitter-configuration.controller.js';
import { TransmitterStreamsController } from './api/transmitter.controller.js';
import { SsfReceiverService } from './receiver/ssf-receiver.service.js';
import { ReceiverAuth } from './transmitter/receiver-auth.js';
import { SignalsTransmitter } from './transmitter/signals-transmitter.js';
import { SsfStreamsService } from './transmitter/ssf-streams.service.js';
import { StreamSubjectsService } from './transmitter/stream-subjects.service.js';

/**
 * Shared Signals (SSF 1.0 with CAEP and RISC; docs/signals.md): the transmitter (`/.well-known/ssf-configuration`,
 * stream management under `/ssf/v1/streams`, push and poll of SETs made from the event log) and the receiver (an
 * upstream IdP's subscription, `/ssf/v1/receive/{idpId}`). It owns `ssf_streams`, `ssf_sets`, `ssf_stream_subjects`,
 * `ssf_subscriptions` and `ssf_jtis_seen`; it signs with the OIDC signing keys and ends sessions through USER_TOKENS (src/oidc, global).
 */
@Module({
  imports: [UsersModule],
  controllers: [TransmitterConfigurationController, TransmitterStreamsController, IdpSignalsController, ReceiveController],
  providers: [SignalsTransmitter, SsfStreamsService, StreamSubjectsService, ReceiverAuth, SsfReceiverService],
})
export class SignalsModule {}
