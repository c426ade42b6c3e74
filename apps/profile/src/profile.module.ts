import { Module } from '@nestjs/common';
import { ServiceRuntime } from '#platform/service-kit';
import { MediaBucket } from '#platform/storage';
import { AppLifecycleHandler } from './app-lifecycle/app-lifecycle.handler';

@Module({
  providers: [
    // Avatars are media objects; profile only signs download URLs for them (D17).
    { provide: MediaBucket, useFactory: (runtime: ServiceRuntime) => MediaBucket.fromEnv(runtime.config.env), inject: [ServiceRuntime] },
    AppLifecycleHandler,
  ],
})
export class ProfileModule {}
