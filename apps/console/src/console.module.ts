import { Module, type Type } from '@nestjs/common';
import { ServiceRuntime } from '#platform/service-kit';
import { SignInHandler } from './sign-in/sign-in.handler';
import { CONSOLE_SETTINGS, ConsoleController, type ConsoleWebSettings } from './web/console.controller';

export interface ConsoleModuleSettings extends ConsoleWebSettings {
  mailFrom: string;
}

/** The console's pages and the handlers behind them, with the settings they read. */
export function consoleModule(settings: ConsoleModuleSettings): Type<unknown> {
  @Module({
    controllers: [ConsoleController],
    providers: [
      { provide: CONSOLE_SETTINGS, useValue: settings },
      { provide: SignInHandler, useFactory: (runtime: ServiceRuntime) => new SignInHandler(runtime, settings), inject: [ServiceRuntime] },
    ],
  })
  class ConsoleModule {}
  return ConsoleModule;
}
