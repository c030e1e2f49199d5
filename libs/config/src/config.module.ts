import { Global, Module, type DynamicModule } from '@nestjs/common';
import { SecretBox } from '@app/security';
import { AppConfig, loadConfig } from './app-config';

/** Provides the settings, read once (tests pass their own), and the SecretBox sealing secrets at rest with their keys. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: AppConfig = loadConfig()): DynamicModule {
    return {
      module: ConfigModule,
      providers: [{ provide: AppConfig, useValue: config }, { provide: SecretBox, useValue: new SecretBox(config.security.keyring) }],
      exports: [AppConfig, SecretBox],
    };
  }
}
