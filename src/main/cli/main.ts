import { main } from './commands';
import { exitCodes, processIo, UsageError } from './output';

/** The entry of `agentdesk` (out/main/cli.js): runs the command (commands.ts) and exits with its code. */
main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    processIo.err(error instanceof UsageError ? error.message : `agentdesk failed: ${(error as Error).message}`);
    process.exit(exitCodes.usage);
  },
);
