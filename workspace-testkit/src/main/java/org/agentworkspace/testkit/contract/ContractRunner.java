package org.agentworkspace.testkit.contract;

import static org.junit.platform.engine.discovery.ClassNameFilter.includeClassNamePatterns;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectPackage;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * Runs the contract suite against a deployment:
 *
 * <pre>
 * AW_CONTRACT_PASSWORD=... java -jar workspace-testkit-0.1.0-runner.jar --base-url http://host:3001 --username admin --password-env AW_CONTRACT_PASSWORD
 * printf '%s\n' "$PW" | java -jar workspace-testkit-0.1.0-runner.jar --base-url http://host:3001 --username admin --password-stdin
 * </pre>
 *
 * <p>Prints every failure and a last line {@code N passed, N failed} (plus {@code , N skipped} when some were), and
 * exits 0 only when every test passed. The password is never accepted as a command-line value.
 */
public final class ContractRunner {
    /** Exit status for a bad command line. */
    public static final int USAGE = 2;

    private static final String PACKAGE = ContractRunner.class.getPackageName();
    private static final String USAGE_TEXT = """
            usage: java -jar workspace-testkit-runner.jar --base-url URL --username NAME \
            (--password-env VARIABLE | --password-stdin) [--test CLASS_NAME_REGEX] [--local [--history-home DIR]] \
            [--allow-update] [--allow-restart]
              --base-url URL          the service, for example http://127.0.0.1:3001
              --username NAME         the account to use (registered first if the service needs setup)
              --password-env VAR      read the password from environment variable VAR
              --password-stdin        read the password from the first line of standard input
              --test REGEX            run only contract test classes whose simple name matches (default: all)
              --local                 the service runs on this host and shares its files: also run the tests
                                      that prepare folders (git repositories) with local tools
              --history-home DIR      with --local: the service's --history-home; the history tests seed a small
                                      history of their own there (unique project paths) and remove it
              --allow-update          also run a real self-update of the service (it may install new code and
                                      restart it; SystemContractTest)
              --allow-restart         also restart the service and wait until it answers again""";

    private ContractRunner() {
    }

    /** Entry point of the runner jar. */
    public static void main(String[] args) {
        int status = run(List.of(args), System.getenv(), System.in, System.out, System.err);
        System.exit(status);
    }

    /**
     * Runs the suite and returns the process exit status.
     *
     * @param args the command line
     * @param env the environment (for {@code --password-env})
     * @param stdin standard input (for {@code --password-stdin})
     * @param out where results go
     * @param err where usage errors go
     */
    public static int run(List<String> args, Map<String, String> env, InputStream stdin, PrintStream out,
                          PrintStream err) {
        Options options;
        try {
            options = Options.parse(args, env, stdin);
        } catch (IllegalArgumentException e) {
            err.println("error: " + e.getMessage());
            err.println(USAGE_TEXT);
            return USAGE;
        }
        if (options == null) {
            out.println(USAGE_TEXT);
            return 0;
        }
        try {
            ContractTarget.of(options.baseUrl(), options.username(), options.password());
        } catch (IllegalArgumentException e) {
            err.println("error: " + e.getMessage());
            return USAGE;
        }

        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectPackage(PACKAGE))
                .filters(includeClassNamePatterns(PACKAGE.replace(".", "\\.") + "\\." + options.testPattern()))
                .configurationParameter(ContractExtension.BASE_URL, options.baseUrl())
                .configurationParameter(ContractExtension.USERNAME, options.username())
                .configurationParameter(ContractExtension.PASSWORD, options.password())
                .configurationParameter(ContractExtension.LOCAL, Boolean.toString(options.local()))
                .configurationParameter(ContractExtension.HISTORY_HOME,
                        options.historyHome() == null ? "" : options.historyHome())
                .configurationParameter(ContractExtension.ALLOW_UPDATE, Boolean.toString(options.allowUpdate()))
                .configurationParameter(ContractExtension.ALLOW_RESTART, Boolean.toString(options.allowRestart()))
                .build();
        Results results = new Results(out);
        try (LauncherSession session = LauncherFactory.openSession()) {
            session.getLauncher().execute(request, results);
        }
        long passed = results.passed.get();
        long failed = results.failed.get();
        long skipped = results.skipped.get();
        out.println(passed + " passed, " + failed + " failed" + (skipped > 0 ? ", " + skipped + " skipped" : ""));
        if (passed == 0 && failed == 0) {
            err.println("error: no contract tests were found or run");
            return 1;
        }
        return failed == 0 ? 0 : 1;
    }

    /** Counts results and prints each failure as it happens. */
    private static final class Results implements TestExecutionListener {
        private final PrintStream out;
        private final AtomicLong passed = new AtomicLong();
        private final AtomicLong failed = new AtomicLong();
        private final AtomicLong skipped = new AtomicLong();

        Results(PrintStream out) {
            this.out = out;
        }

        @Override
        public void executionSkipped(TestIdentifier test, String reason) {
            if (test.isTest()) {
                skipped.incrementAndGet();
                out.println("SKIPPED " + test.getDisplayName() + ": " + reason);
            }
        }

        @Override
        public void executionFinished(TestIdentifier test, TestExecutionResult result) {
            switch (result.getStatus()) {
                case SUCCESSFUL -> {
                    if (test.isTest()) {
                        passed.incrementAndGet();
                    }
                }
                case ABORTED -> {
                    if (test.isTest()) {
                        skipped.incrementAndGet();
                        out.println("SKIPPED " + name(test) + ": " + message(result));
                    }
                }
                case FAILED -> {
                    // a failed container (for example an unreachable target) counts once, so the run cannot pass
                    failed.incrementAndGet();
                    out.println("FAILED " + name(test) + ": " + message(result));
                }
            }
        }

        private static String name(TestIdentifier test) {
            String legacy = test.getLegacyReportingName();
            return test.getParentIdObject().isPresent() && test.isTest()
                    ? test.getUniqueIdObject().getSegments().stream()
                            .filter(s -> s.getType().equals("class"))
                            .map(s -> s.getValue().substring(s.getValue().lastIndexOf('.') + 1))
                            .findFirst().map(c -> c + " > " + legacy).orElse(legacy)
                    : legacy;
        }

        private static String message(TestExecutionResult result) {
            Optional<Throwable> failure = result.getThrowable();
            if (failure.isEmpty()) {
                return "(no reason given)";
            }
            Throwable t = failure.get();
            String text = t.getMessage() == null ? t.getClass().getName() : t.getMessage();
            if (t.getCause() != null && t.getCause() != t) {
                text += "\n    caused by: " + t.getCause();
            }
            return text.replace("\n", "\n    ");
        }
    }

    private record Options(String baseUrl, String username, String password, String testPattern, boolean local,
                           String historyHome, boolean allowUpdate, boolean allowRestart) {
        static Options parse(List<String> args, Map<String, String> env, InputStream stdin) {
            String baseUrl = null;
            String username = null;
            String password = null;
            String passwordSource = null;
            String test = ".*ContractTest";
            boolean local = false;
            String historyHome = null;
            boolean allowUpdate = false;
            boolean allowRestart = false;
            List<String> rest = new ArrayList<>(args);
            while (!rest.isEmpty()) {
                String arg = rest.removeFirst();
                switch (arg) {
                    case "-h", "--help" -> {
                        return null;
                    }
                    case "--base-url" -> baseUrl = value(arg, rest);
                    case "--username" -> username = value(arg, rest);
                    case "--test" -> test = value(arg, rest);
                    case "--local" -> local = true;
                    case "--history-home" -> historyHome = value(arg, rest);
                    case "--allow-update" -> allowUpdate = true;
                    case "--allow-restart" -> allowRestart = true;
                    case "--password-env" -> {
                        passwordSource = once(passwordSource, arg);
                        String variable = value(arg, rest);
                        password = env.get(variable);
                        if (password == null || password.isEmpty()) {
                            throw new IllegalArgumentException("environment variable " + variable + " is empty or unset");
                        }
                    }
                    case "--password-stdin" -> {
                        passwordSource = once(passwordSource, arg);
                        password = readLine(stdin);
                    }
                    case "--password" -> throw new IllegalArgumentException(
                            "the password is never taken from the command line; use --password-env or --password-stdin");
                    default -> throw new IllegalArgumentException(arg.startsWith("--password=")
                            ? "the password is never taken from the command line; use --password-env or --password-stdin"
                            : "unknown argument: " + arg);
                }
            }
            if (baseUrl == null) {
                throw new IllegalArgumentException("--base-url is required");
            }
            if (username == null) {
                throw new IllegalArgumentException("--username is required");
            }
            if (password == null) {
                throw new IllegalArgumentException("a password is required: --password-env VAR or --password-stdin");
            }
            if (historyHome != null && !local) {
                throw new IllegalArgumentException("--history-home needs --local");
            }
            return new Options(baseUrl, username, password, test, local, historyHome, allowUpdate, allowRestart);
        }

        private static String once(String previous, String arg) {
            if (previous != null) {
                throw new IllegalArgumentException(arg + " conflicts with " + previous);
            }
            return arg;
        }

        private static String value(String option, List<String> rest) {
            if (rest.isEmpty() || rest.getFirst().startsWith("--")) {
                throw new IllegalArgumentException(option + " needs a value");
            }
            return rest.removeFirst();
        }

        private static String readLine(InputStream stdin) {
            try {
                String line = new BufferedReader(new InputStreamReader(stdin, StandardCharsets.UTF_8)).readLine();
                if (line == null || line.isEmpty()) {
                    throw new IllegalArgumentException("--password-stdin: standard input held no password");
                }
                return line;
            } catch (IOException e) {
                throw new IllegalArgumentException("--password-stdin: cannot read standard input: " + e.getMessage());
            }
        }

        @Override
        public String toString() {
            return "Options[baseUrl=" + baseUrl + ", username=" + username + ", password=***]";
        }
    }
}
