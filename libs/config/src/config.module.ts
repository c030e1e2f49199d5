import { Global, Module, type DynamicModule } from '@nestjs/common';
import { rememberSecrets } from '@app/observability';
import { SecretBox } from '@app/security';
import { AppConfig, loadConfig } from './app-config';
import { settingSecrets } from './setting-secrets';

/**
 * Provides the settings, read once (tests pass their own), and the SecretBox sealing secrets at rest with
 * their keys. The settings that are secrets become known to the logs' and failure messages' scrubber.
 */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: AppConfig = loadConfig()): DynamicModule {
    rememberSecrets(settingSecrets(config));
    return {
      module: ConfigModule,
      providers: [
        { provide: AppConfig, useValue: config },
        { provide: SecretBox, useValue: new SecretBox(config.security.keyring) },
      ],
      exports: [AppConfig, SecretBox],
    };
  }
}
