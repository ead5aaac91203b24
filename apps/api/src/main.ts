import { ConfigError, StartupError } from './composition/config';
import { runService } from './composition/run-service';

// `pnpm start`: the service as configured by the environment (run-service.ts), as `svc start` runs it.
runService().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof ConfigError) process.stderr.write(`${error.message}\n`);
    else if (error instanceof StartupError) process.stderr.write(`svc cannot start: ${error.message}\n`);
    else process.stderr.write(`svc failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
