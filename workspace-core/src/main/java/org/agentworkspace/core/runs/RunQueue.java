package org.agentworkspace.core.runs;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@link RunEngine}'s waiting runs and its counts of running ones: FIFO per provider, a provider or an account at
 * its limit does not block the others; on a shared store the slots are given by {@link SharedAdmission} over every
 * node. Split from the engine to keep each class to one concern. Every method but {@link #admitSoon} is called with
 * the engine's schedule lock held.
 */
final class RunQueue {
    private static final System.Logger LOG = System.getLogger(RunEngine.class.getName());

    private final RunEngine engine;
    private final RunSettings settings;
    private final SharedAdmission admission;
    private final ArrayDeque<ActiveRun> queue = new ArrayDeque<>();
    private final Map<String, Integer> runningByProvider = new HashMap<>();
    private final Map<String, Integer> queuedByAccount = new HashMap<>();
    private final Map<String, Integer> runningByAccount = new HashMap<>();
    private final AtomicBoolean admitPending = new AtomicBoolean();
    private int running;

    RunQueue(RunEngine engine, RunSettings settings, SharedAdmission admission) {
        this.engine = engine;
        this.settings = settings;
        this.admission = admission;
    }

    private static void count(Map<String, Integer> counts, String key, int delta) {
        if (key != null) {
            counts.merge(key, delta, (a, b) -> a + b == 0 ? null : a + b);
        }
    }

    /** Whether a new run would have to wait in the queue. */
    boolean wouldWait(RunRequest request) {
        return !queue.isEmpty() || running >= settings.globalLimit()
                || runningByProvider.getOrDefault(request.provider(), 0) >= settings.limitFor(request.provider())
                || (request.account() != null
                        && runningByAccount.getOrDefault(request.account(), 0) >= settings.activeLimitPerAccount());
    }

    int queuedOf(String account) {
        return queuedByAccount.getOrDefault(account, 0);
    }

    int size() {
        return queue.size();
    }

    boolean isEmpty() {
        return queue.isEmpty();
    }

    int running() {
        return running;
    }

    /** Puts a run at the end of the queue. */
    void add(ActiveRun run) {
        queue.add(run);
        count(queuedByAccount, run.account(), 1);
    }

    /** Takes a waiting run out of the queue (cancelled); false when it is not waiting. */
    boolean remove(ActiveRun run) {
        if (!queue.remove(run)) {
            return false;
        }
        count(queuedByAccount, run.account(), -1);
        return true;
    }

    /** Starts a queued run that has its slot (a shared store's admission gave it one at insert). */
    void launchNow(ActiveRun run) {
        queue.remove(run);
        launch(run);
    }

    /** Starts queued runs while the limits allow. */
    void schedule() {
        if (admission.shared()) {
            for (ActiveRun r : admission.admit(List.copyOf(queue))) {
                queue.remove(r);
                launch(r);
            }
            return;
        }
        Iterator<ActiveRun> it = queue.iterator();
        while (it.hasNext() && running < settings.globalLimit()) {
            ActiveRun r = it.next();
            int now = runningByProvider.getOrDefault(r.provider(), 0);
            if (now >= settings.limitFor(r.provider())) {
                continue;
            }
            if (r.account() != null
                    && runningByAccount.getOrDefault(r.account(), 0) >= settings.activeLimitPerAccount()) {
                continue;
            }
            it.remove();
            launch(r);
        }
    }

    /** Starts a run that left the queue with a slot. */
    private void launch(ActiveRun r) {
        count(queuedByAccount, r.account(), -1);
        count(runningByAccount, r.account(), 1);
        running++;
        runningByProvider.merge(r.provider(), 1, Integer::sum);
        Thread.ofVirtual().name("aw-run-" + r.id).start(new RunProcess(engine, r));
    }

    /**
     * Shared store: tries, on a thread of its own, to give slots to this node's waiting runs (a slot was freed here
     * or on another node). Calls that arrive while one is pending are folded into it. Called without the lock.
     */
    void admitSoon() {
        if (!admission.shared() || !admitPending.compareAndSet(false, true)) {
            return;
        }
        Thread.ofVirtual().name("aw-run-admit").start(() -> {
            admitPending.set(false);
            engine.schedule.lock();
            try {
                if (!engine.closed && !queue.isEmpty()) {
                    schedule();
                }
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "could not start waiting runs; trying again at the next "
                        + "heartbeat: " + e);
            } finally {
                engine.schedule.unlock();
            }
        });
    }

    /** A run's process tree is gone: its place is free (on a shared store, once its terminal status is committed). */
    void released(ActiveRun run) {
        running--;
        runningByProvider.merge(run.provider(), -1, Integer::sum);
        count(runningByAccount, run.account(), -1);
        if (!engine.closed && !admission.shared()) {
            schedule();
        }
    }

    /** Empties the queue (the engine stops): the runs that were waiting. */
    List<ActiveRun> drain() {
        List<ActiveRun> queued = new ArrayList<>(queue);
        queue.clear();
        queuedByAccount.clear();
        return queued;
    }
}
