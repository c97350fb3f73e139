package org.agentworkspace.server;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import io.helidon.logging.common.LogConfig;

import org.agentworkspace.api.ApiKeyInfo;
import org.agentworkspace.api.User;
import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.WorkspaceEngine;
import org.agentworkspace.core.auth.ApiKeys;

/**
 * Command line: {@code serve} (the default) starts the server; {@code import-legacy-key} registers a legacy
 * {@code ck_} key, read from standard input so it never appears in a process listing.
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] argv) {
        LogConfig.configureRuntime();
        List<String> args = new ArrayList<>(Arrays.asList(argv));
        String command = !args.isEmpty() && !args.getFirst().startsWith("-") ? args.removeFirst() : "serve";
        PrintStream err = System.err;
        try {
            switch (command) {
                case "serve" -> serve(args);
                case "import-legacy-key" -> importLegacyKey(args);
                case "help", "--help" -> usage(System.out);
                default -> {
                    err.println("unknown command: " + command);
                    usage(err);
                    System.exit(2);
                }
            }
        } catch (IllegalArgumentException e) {
            err.println("error: " + e.getMessage());
            System.exit(2);
        } catch (IllegalStateException | org.agentworkspace.api.WorkspaceException | java.io.UncheckedIOException e) {
            err.println("agent-workspace: cannot start: " + e.getMessage());
            System.exit(1);
        }
    }

    private static void serve(List<String> args) {
        if (args.contains("--help")) {
            usage(System.out);
            return;
        }
        ServerConfig config = ServerConfig.from(System.getenv(), args);
        // a restart or self-update ends the process with code 42 through System.exit: the hook below stops the
        // server gracefully first, and the launcher (scripts/run.sh, a service manager) starts it again
        WorkspaceServer server = WorkspaceServer.start(config, System.getenv(), ProcessExit.SYSTEM);
        // printed whatever the log level: where the data is, and the home the CLIs and their histories use
        System.err.println("agent-workspace: listening on http://" + config.host() + ":" + server.port()
                + "; data folder " + config.engine().dataDir().toAbsolutePath().normalize() + "; home "
                + ServerConfig.home(System.getenv()));
        // a vital thread that dies ends the process (status 70) so that the launcher starts it again
        Watchdog watchdog = Watchdog.start(ProcessExit.SYSTEM, java.time.Duration.ofSeconds(1));
        if (!watchdog.watchListeners()) {
            System.err.println("agent-workspace: warning: the HTTP listener thread was not found; it is not watched");
        }
        server.vitalThreads().forEach(watchdog::watch);
        CountDownLatch stopped = new CountDownLatch(1);
        // JUL resets its handlers in its own shutdown hook, so progress goes straight to stderr
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            watchdog.close();
            System.err.println("agent-workspace: shutting down");
            server.close();
            System.err.println("agent-workspace: stopped");
            stopped.countDown();
        }, "aw-shutdown"));
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** {@code import-legacy-key --user NAME --name LABEL [--scopes a,b] [serve options]}; the key comes on stdin. */
    private static void importLegacyKey(List<String> args) {
        String user = take(args, "--user");
        String name = take(args, "--name");
        String scopes = takeOptional(args, "--scopes");
        ServerConfig config = ServerConfig.from(System.getenv(), args);
        String key;
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            key = in.readLine();
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("cannot read the key from standard input");
        }
        if (key == null) {
            throw new IllegalArgumentException("pipe the legacy key on standard input");
        }
        try (WorkspaceEngine engine = WorkspaceEngine.open(config.engine())) {
            User owner = engine.auth().accounts().list().stream()
                    .filter(u -> u.username().equalsIgnoreCase(user)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("no such user: " + user));
            ApiKeyInfo info = engine.auth().apiKeys().importLegacy(owner.id(), name, key.strip(),
                    scopes == null ? null : ApiKeys.parseScopes(Arrays.asList(scopes.split(","))));
            System.out.println("imported legacy key " + info.value() + " (id " + info.id() + ") for " + owner.username());
        } catch (WorkspaceException e) {
            throw new IllegalArgumentException(e.getMessage());
        }
    }

    private static String take(List<String> args, String flag) {
        String v = takeOptional(args, flag);
        if (v == null) {
            throw new IllegalArgumentException(flag + " is required");
        }
        return v;
    }

    private static String takeOptional(List<String> args, String flag) {
        int i = args.indexOf(flag);
        if (i < 0) {
            return null;
        }
        if (i + 1 >= args.size()) {
            throw new IllegalArgumentException(flag + " needs a value");
        }
        String v = args.get(i + 1);
        args.remove(i + 1);
        args.remove(i);
        return v;
    }

    private static void usage(PrintStream out) {
        out.println(usageText());
    }

    /** The command line help: every option of {@link ServerConfig} with its environment twin. */
    static String usageText() {
        return """
                usage: agent-workspace [serve] [options]
                       agent-workspace import-legacy-key --user NAME --name LABEL [--scopes a,b] [options] < keyfile

                options (each also as an environment variable):
                  --host HOST                     AW_HOST                          bind address (127.0.0.1)
                  --port PORT                     AW_PORT                          TCP port (3001)
                  --data-dir DIR                  AW_DATA_DIR                      data directory (~/.agent-workspace)
                  --db-url URL                    AW_DB_URL                        jdbc:postgresql:... (embedded SQLite)
                  --allowed-hosts A,B             AW_ALLOWED_HOSTS                 extra Host names on loopback
                  --allowed-origins O,P           AW_ALLOWED_ORIGINS               extra browser origins
                  --trusted-proxies IP,IP         AW_TRUSTED_PROXIES               proxies whose X-Forwarded-* count
                  --legacy-query-credentials      AW_LEGACY_QUERY_CREDENTIALS      accept ?apiKey= / ?token= (off)
                  --secure-cookies                AW_SECURE_COOKIES                always mark the cookie Secure
                  --session-hours N               AW_SESSION_HOURS                 session lifetime (168)
                  --max-payload-bytes N           AW_MAX_PAYLOAD_BYTES             largest request body (1048576)
                  --max-file-bytes N              AW_MAX_FILE_BYTES                largest file read or written (10485760)
                  --browse-roots D,E              AW_BROWSE_ROOTS                  folders the folder picker shows (~)
                  --git-credential-origins O      AW_GIT_CREDENTIAL_ORIGINS        where git tokens may go (https://github.com)
                  --cli-path [ID=]PATH,...        AW_CLI_PATH                      provider CLI binaries (<data-dir>/cli-bin, then PATH)
                  --provider-env ID:N=V,...       AW_PROVIDER_ENV                  variables added to a provider CLI's environment
                  --max-connections N             AW_MAX_CONNECTIONS               TCP connections open at once (1000)
                  --max-connections-per-address N AW_MAX_CONNECTIONS_PER_ADDRESS  from one client address (256)
                  --head-timeout-seconds N        AW_HEAD_TIMEOUT_SECONDS          a new connection's first request head (10)
                  --idle-timeout-seconds N        AW_IDLE_TIMEOUT_SECONDS          idle keep-alive connections closed (600)
                  --max-streams-per-account N     AW_MAX_STREAMS_PER_ACCOUNT       open SSE/NDJSON streams of one account (16)
                  --max-concurrent-runs N         AW_MAX_CONCURRENT_RUNS           agent processes alive at once (8)
                  --max-run-output-bytes N        AW_MAX_RUN_OUTPUT_BYTES          stdout stored per run; past it the run is stopped (64 MiB)
                  --run-retention-days N          AW_RUN_RETENTION_DAYS            ended runs older than this are deleted (30)
                  --run-retention-count N         AW_RUN_RETENTION_COUNT           at most this many runs are kept, the newest (10000)
                  --max-runs-per-account N        AW_MAX_RUNS_PER_ACCOUNT          of them, one account's (one fewer)
                  --max-queued-runs-per-account N AW_MAX_QUEUED_RUNS_PER_ACCOUNT   one account's runs waiting (20)
                  --trust-local-project-paths B   AW_TRUST_LOCAL_PROJECT_PATHS     projectPath from local callers (true)
                  --clone-allowed-hosts H,H       AW_CLONE_ALLOWED_HOSTS           hosts a githubUrl may name (github.com)
                  --github-api-url URL            AW_GITHUB_API_URL                API for pull requests (https://api.github.com)
                  --history-home D,E              AW_HISTORY_HOME                  homes whose CLI histories are indexed (HOME)
                  --history-index B               AW_HISTORY_INDEX                 index the CLI histories (true)
                  --update-url URL                AW_UPDATE_URL                    manifest of runtime-dir packages (none)
                  --runtime-dir DIR               AW_RUNTIME_DIR                   runtime directory (<data-dir>/runtime)
                  --source-dir DIR                AW_SOURCE_DIR                    source checkout of a git install (found)
                  --update-max-bytes N            AW_UPDATE_MAX_BYTES              largest update package (268435456)
                  --update-public-key KEY         AW_UPDATE_PUBLIC_KEY             Ed25519 key signing the manifest (none)
                  --web-push-subject S            AW_WEB_PUSH_SUBJECT              VAPID contact, mailto: or https:
                  --web-push-allow-loopback-http  AW_WEB_PUSH_ALLOW_LOOPBACK_HTTP  http://127.0.0.1 push endpoints (off; tests)
                  --project-roots D,E             AW_PROJECT_ROOTS                 folders projects and runs may use (~)
                  --outbound-allow H:P,...        AW_OUTBOUND_ALLOW                loopback/private endpoints allowed (none)
                  --advertise-url URL             AW_ADVERTISE_URL                 address other nodes reach this one at (bind address)
                  --runner-only                   AW_RUNNER_ONLY                   run agents and forwarded requests only (off)

                exit status: 0 stopped, 1 cannot start, 2 bad command line, 42 restart requested (POST
                /api/system/restart, or a self-update): scripts/run.sh then rebuilds if needed and starts it again;
                3 out of memory (-XX:+ExitOnOutOfMemoryError), 70 a vital thread died: scripts/run.sh starts it again
                after a back-off""";
    }
}
