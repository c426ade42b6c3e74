import { Module } from '@nestjs/common';
import { AppLifecycleHandler } from './app-lifecycle/app-lifecycle.handler';

@Module({ providers: [AppLifecycleHandler] })
export class ProfileModule {}
