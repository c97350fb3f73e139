package org.agentworkspace.testkit.contract;

import org.junit.jupiter.api.Assumptions;

/**
 * Where the service under test runs, as far as the suite can use it. Injected into contract tests like
 * {@link ContractClient}.
 *
 * @param local the service runs on this host and shares its filesystem: a test may prepare a folder with local
 *              tools (for example a git repository and a bare remote with the {@code git} command) and hand its path
 *              to the service. Set by the embedded target's provider, or by {@code aw.contract.local=true} /
 *              the runner's {@code --local}
 * @param historyHome the directory the service reads CLI history from, or null when unknown
 * @param optIns      the actions that change the service itself which the operator allowed the suite to take:
 *                    {@link #UPDATE} ({@code aw.contract.allowUpdate=true} / the runner's {@code --allow-update})
 *                    and {@link #RESTART} ({@code aw.contract.allowRestart=true} / {@code --allow-restart})
 */
public record ContractHost(boolean local, java.nio.file.Path historyHome, java.util.Set<String> optIns) {
    /** Opt-in: the suite may run a real self-update of the service (it may install new code and restart it). */
    public static final String UPDATE = "update";
    /** Opt-in: the suite may restart the service. */
    public static final String RESTART = "restart";

    public ContractHost {
        optIns = optIns == null ? java.util.Set.of() : java.util.Set.copyOf(optIns);
    }

    /** A host without a known history home. */
    public ContractHost(boolean local) {
        this(local, null);
    }

    /** A host without opt-ins. */
    public ContractHost(boolean local, java.nio.file.Path historyHome) {
        this(local, historyHome, java.util.Set.of());
    }

    /**
     * Skips the calling test unless the operator allowed {@code action} ({@link #UPDATE}, {@link #RESTART}); the
     * reason is logged and is the skip's reason.
     */
    public void assumeOptedIn(String action, String what) {
        if (!optIns.contains(action)) {
            String reason = what + " changes the service itself and runs only when allowed (aw.contract.allow"
                    + Character.toUpperCase(action.charAt(0)) + action.substring(1) + "=true or --allow-" + action
                    + "); skipped";
            System.getLogger(ContractHost.class.getName()).log(System.Logger.Level.WARNING, "SKIPPED: " + reason);
            Assumptions.abort(reason);
        }
    }

    /**
     * The service's history home (where the CLIs' session files are read from), skipping the calling test unless
     * the service is local and its history home is known ({@link ContractTargetProvider#historyHome()}, or
     * {@code aw.contract.historyHome} / the runner's {@code --history-home}).
     */
    public java.nio.file.Path assumeHistoryHome(String what) {
        assumeLocal(what);
        if (historyHome == null) {
            String reason = what + " needs the service's history home (aw.contract.historyHome or --history-home); "
                    + "skipped";
            System.getLogger(ContractHost.class.getName()).log(System.Logger.Level.WARNING, "SKIPPED: " + reason);
            Assumptions.abort(reason);
        }
        return historyHome;
    }

    /**
     * Skips the calling test unless the service shares this host's filesystem. The reason is logged and is the
     * skip's reason (the runner prints it as {@code SKIPPED <test>: <reason>}).
     */
    public void assumeLocal(String what) {
        if (!local) {
            String reason = what + " needs a service on this host (aw.contract.local=true or --local); skipped";
            System.getLogger(ContractHost.class.getName()).log(System.Logger.Level.WARNING, "SKIPPED: " + reason);
            Assumptions.abort(reason);
        }
    }
}
