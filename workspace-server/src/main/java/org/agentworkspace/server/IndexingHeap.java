package org.agentworkspace.server;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.lang.management.ManagementFactory;
import java.time.Duration;

import com.sun.management.HotSpotDiagnosticMXBean;

import org.agentworkspace.core.index.HistoryIndex;

/**
 * More heap room while the history index makes its first full read, the usual room afterwards. The server runs with a
 * small heap that the collector keeps tight (scripts/jvm-opts.sh: {@code MinHeapFreeRatio=10},
 * {@code MaxHeapFreeRatio=30}), which suits a server that mostly waits. The first read of a large history is the
 * opposite: messages in flight between the readers, the writer and the full-text thread outlive young collections,
 * and a tight old generation fills with them again and again. Measured on the 2 GB benchmark history (docs/benchmarks.md
 * run 15): with 40 / 70 during that read, about a quarter fewer collections and 0.5-0.8 s less time in collector pauses,
 * during which every indexing thread stands still. The maximum heap ({@code -Xmx}) is not changed, so the peak stays
 * bounded; once the index is ready the ratios are put back and a full collection gives the room back.
 *
 * <p>Both flags are "manageable" HotSpot flags (settable while the JVM runs); on a JVM without them, or when the
 * process was started with roomier ratios, nothing is changed. Several servers in one JVM (tests) share the flags: the
 * first raises them, the last to finish puts them back.
 */
final class IndexingHeap {
    private static final Logger LOG = System.getLogger(IndexingHeap.class.getName());
    private static final int MIN_FREE = 40;
    private static final int MAX_FREE = 70;

    private static final Object LOCK = new Object();
    private static int holders;
    private static String savedMin;
    private static String savedMax;

    private IndexingHeap() {
    }

    /** Gives the heap more room until {@code index} is ready (or closed); returns at once. */
    static void during(HistoryIndex index) {
        if (!index.started() || index.status().readyAt() != null || !raise()) {
            return;
        }
        Thread.ofVirtual().name("indexing-heap").start(() -> {
            boolean ready = false;
            try {
                ready = index.awaitReady(Duration.ofDays(365));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                if (lower() && ready) {
                    // the index collected already; this collection shrinks the heap with the usual ratios
                    System.gc();
                }
            }
        });
    }

    private static HotSpotDiagnosticMXBean vm() {
        return ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
    }

    /** Raises the ratios (or counts one more holder); false when they are left alone. */
    private static boolean raise() {
        synchronized (LOCK) {
            if (holders > 0) {
                holders++;
                return true;
            }
            try {
                HotSpotDiagnosticMXBean vm = vm();
                String min = vm.getVMOption("MinHeapFreeRatio").getValue();
                String max = vm.getVMOption("MaxHeapFreeRatio").getValue();
                if (Integer.parseInt(min) >= MIN_FREE && Integer.parseInt(max) >= MAX_FREE) {
                    return false;
                }
                // the maximum first: the JVM refuses a minimum above the current maximum
                vm.setVMOption("MaxHeapFreeRatio", String.valueOf(Math.max(MAX_FREE, Integer.parseInt(max))));
                vm.setVMOption("MinHeapFreeRatio", String.valueOf(Math.max(MIN_FREE, Integer.parseInt(min))));
                savedMin = min;
                savedMax = max;
                holders = 1;
                return true;
            } catch (RuntimeException e) {
                LOG.log(Level.DEBUG, "heap ratios left as they are: {0}", e.toString());
                return false;
            }
        }
    }

    /** One holder fewer; the last puts the ratios back. True when this call put them back. */
    private static boolean lower() {
        synchronized (LOCK) {
            if (holders == 0 || --holders > 0) {
                return false;
            }
            try {
                HotSpotDiagnosticMXBean vm = vm();
                vm.setVMOption("MinHeapFreeRatio", savedMin);
                vm.setVMOption("MaxHeapFreeRatio", savedMax);
                return true;
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "cannot put the heap ratios back: {0}", e.toString());
                return false;
            }
        }
    }
}
