import { Module } from '@nestjs/common';
import { OrgsHandler } from './orgs/orgs.handler';
import { SimHandler } from './relationships/sim.handler';
import { UsersHandler } from './users/users.handler';

@Module({ providers: [OrgsHandler, UsersHandler, SimHandler] })
export class ChatSimModule {}
