import { Module } from '@nestjs/common';
import { UsersModule } from '../users/users.module.js';
import { AgentRegistrationTokensController } from './api/agent-registration-tokens.controller.js';
import { ExternalResourcesController } from './api/external-resources.controller.js';
import { RegisteredClientsController } from './api/registered-clients.controller.js';
import { UnboundRegisteredClientsController } from './api/unbound-registered-clients.controller.js';
import { UserAgentsController } from './api/user-agents.controller.js';
import { UserAgentsService } from './consent/user-agents.service.js';
import { ExternalResources } from './external-resources/external-resources.service.js';
import { AgentClientLapse } from './registration/agent-client-lapse.js';
import { AgentRegistrationTokens } from './registration/agent-registration-tokens.service.js';
import { RegisteredClients } from './registration/registered-clients.service.js';

/**
 * Agents (docs/agents.md): clients known by their metadata document or registered by themselves, the people's
 * consents to them, enterprise-managed authorization (ID-JAG) and the organizations' external resources. Owns
 * `agent_registration_tokens`, `dynamic_clients`, `agent_consents` and `external_resources`; the provider reaches
 * it through the functions and types it exports, and it reaches the provider through src/agents/provider-port.ts.
 */
@Module({
  imports: [UsersModule],
  controllers: [
    UserAgentsController,
    AgentRegistrationTokensController,
    RegisteredClientsController,
    UnboundRegisteredClientsController,
    ExternalResourcesController,
  ],
  providers: [UserAgentsService, AgentRegistrationTokens, RegisteredClients, ExternalResources, AgentClientLapse],
  exports: [ExternalResources, AgentClientLapse],
})
export class AgentsModule {}
