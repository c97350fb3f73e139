package org.agentworkspace.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import com.sun.management.HotSpotDiagnosticMXBean;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

import org.agentworkspace.core.EngineConfig;
import org.agentworkspace.core.WorkspaceEngine;
import org.agentworkspace.testkit.historygen.HistoryGenerator;

/**
 * The server's heap room during the history index's first full read ({@link IndexingHeap}): with the tight ratios
 * scripts/run.sh gives the JVM, they are raised while the index reads a generated history and put back once it is
 * ready; a JVM started with roomier ratios is left alone, and so is an engine whose index does not run.
 */
@Isolated("changes JVM-wide heap flags")
class IndexingHeapTest {
    private static final HotSpotDiagnosticMXBean VM = ManagementFactory.getPlatformMXBean(
            HotSpotDiagnosticMXBean.class);

    @TempDir
    Path tmp;

    private String savedMin;
    private String savedMax;

    @BeforeEach
    void saveRatios() {
        savedMin = flag("MinHeapFreeRatio");
        savedMax = flag("MaxHeapFreeRatio");
    }

    @AfterEach
    void restoreRatios() {
        ratios(savedMin, savedMax);
    }

    private static String flag(String name) {
        return VM.getVMOption(name).getValue();
    }

    private static void ratios(String min, String max) {
        // the order the JVM accepts whichever way they move
        if (Integer.parseInt(min) > Integer.parseInt(flag("MaxHeapFreeRatio"))) {
            VM.setVMOption("MaxHeapFreeRatio", max);
            VM.setVMOption("MinHeapFreeRatio", min);
        } else {
            VM.setVMOption("MinHeapFreeRatio", min);
            VM.setVMOption("MaxHeapFreeRatio", max);
        }
    }

    private WorkspaceEngine engine(Path home, boolean index) {
        return WorkspaceEngine.open(EngineConfig.create(tmp.resolve("data-" + index)).withHistoryHomes(List.of(home))
                .withHistoryIndex(index), Map.of("HOME", home.toString()));
    }

    @Test
    void ratiosAreRaisedWhileTheFirstReadRunsAndPutBackWhenReady() throws Exception {
        Path home = tmp.resolve("home");
        HistoryGenerator.generate(new HistoryGenerator.Options(home, 4, 200, 40L << 20, 3, 2));
        ratios("10", "30");
        try (WorkspaceEngine engine = engine(home, true)) {
            IndexingHeap.during(engine.history());
            String raisedMin = flag("MinHeapFreeRatio");
            String raisedMax = flag("MaxHeapFreeRatio");
            // 40 MB of history takes far longer to index than these lines take to run
            assertNotNull(engine.history().status(), "status");
            assertTrue(engine.history().status().readyAt() == null, "the read is still running");
            assertEquals("40", raisedMin);
            assertEquals("70", raisedMax);
            assertTrue(engine.history().awaitReady(Duration.ofSeconds(120)), "index ready");
            long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (!flag("MinHeapFreeRatio").equals("10") && System.nanoTime() < end) {
                Thread.sleep(10);
            }
            assertEquals("10", flag("MinHeapFreeRatio"));
            assertEquals("30", flag("MaxHeapFreeRatio"));
        }
    }

    @Test
    void roomierRatiosAndAnIndexThatDoesNotRunAreLeftAlone() throws Exception {
        Path home = tmp.resolve("home");
        HistoryGenerator.generate(new HistoryGenerator.Options(home, 2, 20, 2L << 20, 3, 1));
        ratios("50", "80");
        try (WorkspaceEngine engine = engine(home, true)) {
            IndexingHeap.during(engine.history());
            assertEquals("50", flag("MinHeapFreeRatio"));
            assertEquals("80", flag("MaxHeapFreeRatio"));
            assertTrue(engine.history().awaitReady(Duration.ofSeconds(60)));
        }
        ratios("10", "30");
        try (WorkspaceEngine engine = engine(home, false)) {
            IndexingHeap.during(engine.history());
            assertEquals("10", flag("MinHeapFreeRatio"));
            assertEquals("30", flag("MaxHeapFreeRatio"));
        }
    }
}
