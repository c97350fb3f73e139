package org.agentworkspace.core.system;

import java.time.Clock;
import java.util.Map;
import java.util.Objects;

import org.agentworkspace.api.WorkspaceException;

/**
 * Runs self-updates, one at a time, each on its own thread as an {@link UpdateJob}. What an update does depends on
 * the {@link InstallMode}: {@code runtime-dir} installs the package a manifest names ({@link RuntimeDirUpdate}),
 * {@code git} fast-forwards the source checkout ({@link CheckoutUpdate}), {@code docker} and {@code npm-global}
 * are refused with {@code UPDATE_NOT_SUPPORTED}. An update that put new code in place asks for a restart: the caller
 * then lets the process exit with {@link #RESTART_EXIT_CODE}, and its launcher starts the new code. From then on
 * (and while an update runs) further updates and restarts are refused with {@code UPDATE_IN_PROGRESS}.
 */
public final class SystemUpdater {
    private static final System.Logger LOG = System.getLogger(SystemUpdater.class.getName());

    /** The exit status that asks the launcher ({@code scripts/run.sh}, a service manager) to start the server again. */
    public static final int RESTART_EXIT_CODE = 42;

    private final UpdateSettings settings;
    private final Map<String, String> env;
    private final Clock clock;
    private UpdateJob current;
    private boolean restartPending;

    private SystemUpdater(UpdateSettings settings, Map<String, String> env, Clock clock) {
        this.settings = Objects.requireNonNull(settings);
        this.env = Map.copyOf(env);
        this.clock = clock;
        if (settings.manifestUrl() != null && settings.publicKey() == null) {
            LOG.log(System.Logger.Level.WARNING, "updates come from a manifest without a signature key "
                    + "(--update-public-key): whoever can change the manifest "
                    + ("http".equals(settings.manifestUrl().getScheme()) ? "in transit or " : "")
                    + "on its server chooses the code this service runs next");
        }
    }

    /**
     * @param env the server's environment: {@code PATH} (to find git) and what git needs to reach a remote
     *            ({@code HOME}, {@code SSH_AUTH_SOCK}, proxies) — only an allow-list reaches git
     */
    public static SystemUpdater create(UpdateSettings settings, Map<String, String> env) {
        return new SystemUpdater(settings, env, Clock.systemUTC());
    }

    public UpdateSettings settings() {
        return settings;
    }

    /**
     * Starts an update of a service installed as {@code mode} and running {@code runningVersion}.
     *
     * @throws WorkspaceException.Conflict {@code UPDATE_IN_PROGRESS} while another update runs or a restart is
     *                                     pending
     */
    public synchronized UpdateJob start(InstallMode mode, String runningVersion) {
        refuseWhileBusy();
        UpdateJob job = new UpdateJob(mode, clock);
        current = job;
        Thread.ofPlatform().name("aw-system-update").daemon().start(() -> run(job, mode, runningVersion));
        return job;
    }

    /**
     * Marks a restart as pending: later updates are refused until the process exits.
     *
     * @throws WorkspaceException.Conflict {@code UPDATE_IN_PROGRESS} while an update runs (a restart then could
     *                                     stop it halfway)
     */
    public synchronized void beginRestart() {
        if (current != null && !current.isFinished()) {
            throw new WorkspaceException.Conflict(UpdateErrorCodes.UPDATE_IN_PROGRESS,
                    "an update is running; it restarts the service itself when it needs to");
        }
        restartPending = true;
    }

    /** Whether an update runs or a restart is pending. */
    public synchronized boolean busy() {
        return restartPending || (current != null && (!current.isFinished() || current.asksForRestart()));
    }

    private void refuseWhileBusy() {
        if (current != null && !current.isFinished()) {
            throw new WorkspaceException.Conflict(UpdateErrorCodes.UPDATE_IN_PROGRESS, "an update is running already");
        }
        // the job's end and its request for a restart are one step (UpdateJob#done): no update slips in between
        if (restartPending || (current != null && current.asksForRestart())) {
            throw new WorkspaceException.Conflict(UpdateErrorCodes.UPDATE_IN_PROGRESS,
                    "the service is about to restart; update again once it is back");
        }
    }

    private void run(UpdateJob job, InstallMode mode, String runningVersion) {
        try {
            UpdateOutcome outcome = switch (mode) {
                case DOCKER -> throw new UpdateFailure(UpdateErrorCodes.UPDATE_NOT_SUPPORTED,
                        "this service runs in a container: pull the new image and recreate the container "
                                + "(docker pull, then docker compose up -d or docker run)");
                case NPM_GLOBAL -> throw new UpdateFailure(UpdateErrorCodes.UPDATE_NOT_SUPPORTED,
                        "this Java service is not distributed through npm: install it from a runtime package "
                                + "(runtime-dir) or run it from a source checkout (git)");
                case RUNTIME_DIR -> new RuntimeDirUpdate(settings, job).run(runningVersion);
                case GIT -> new CheckoutUpdate(settings, env, job).run(runningVersion);
            };
            job.done(outcome);
        } catch (UpdateFailure f) {
            job.fail(f.code(), f.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            job.fail(UpdateErrorCodes.UPDATE_FAILED, "the update was interrupted; nothing was switched");
        } catch (RuntimeException | java.io.IOException e) {
            LOG.log(System.Logger.Level.ERROR, "the update failed unexpectedly", e);
            job.fail(UpdateErrorCodes.UPDATE_FAILED, "the update failed unexpectedly (see the server log); "
                    + "nothing was switched");
        } finally {
            // an Error: the job still ends, so its stream ends and a later update is possible
            job.fail(UpdateErrorCodes.UPDATE_FAILED, "the update failed unexpectedly (see the server log)");
        }
    }
}
