import { Module } from '@nestjs/common';
import { ServiceRuntime } from '#platform/service-kit';
import { MediaBucket } from '#platform/storage';
import { GetMediaHandler } from './get-media/get-media.handler';
import { CreateUploadHandler } from './upload/create-upload.handler';
import { PendingUploadsSweeper } from './verification/pending-uploads.sweeper';
import { UploadVerification } from './verification/upload-verification.service';

@Module({
  providers: [
    { provide: MediaBucket, useFactory: (runtime: ServiceRuntime) => MediaBucket.fromEnv(runtime.config.env), inject: [ServiceRuntime] },
    UploadVerification,
    CreateUploadHandler,
    GetMediaHandler,
    PendingUploadsSweeper,
  ],
})
export class MediaModule {}
