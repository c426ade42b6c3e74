import { Module, type Type } from '@nestjs/common';
import { ServiceRuntime } from '#platform/service-kit';
import { MembersHandler } from './members/members.handler';
import { SignInHandler } from './sign-in/sign-in.handler';
import { ConsoleController } from './web/console.controller';
import { CONSOLE_SETTINGS, ConsoleWeb, type ConsoleWebSettings } from './web/console-web';
import { MembersController } from './web/members.controller';

export interface ConsoleModuleSettings extends ConsoleWebSettings {
  mailFrom: string;
}

/** The console's pages and the handlers behind them, with the settings they read. */
export function consoleModule(settings: ConsoleModuleSettings): Type<unknown> {
  @Module({
    controllers: [ConsoleController, MembersController],
    providers: [
      { provide: CONSOLE_SETTINGS, useValue: settings },
      ConsoleWeb,
      { provide: SignInHandler, useFactory: (runtime: ServiceRuntime) => new SignInHandler(runtime, settings), inject: [ServiceRuntime] },
      { provide: MembersHandler, useFactory: (runtime: ServiceRuntime) => new MembersHandler(runtime, settings), inject: [ServiceRuntime] },
    ],
  })
  class ConsoleModule {}
  return ConsoleModule;
}
