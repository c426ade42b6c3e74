import { Module } from '@nestjs/common';

/** Admin port app: health, metrics, the admin API (mounted as middleware in main.ts) and the keys.* RPC operations. */
@Module({})
export class GatewayModule {}
