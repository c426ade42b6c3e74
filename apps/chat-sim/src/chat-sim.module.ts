import { Module } from '@nestjs/common';
import { OrgsHandler } from './orgs/orgs.handler';
import { UsersHandler } from './users/users.handler';

@Module({ providers: [OrgsHandler, UsersHandler] })
export class ChatSimModule {}
