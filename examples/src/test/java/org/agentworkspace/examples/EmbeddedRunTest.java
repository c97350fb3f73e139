package org.agentworkspace.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;

import org.agentworkspace.core.runs.EntryKind;
import org.agentworkspace.core.runs.RunEntry;
import org.agentworkspace.core.runs.RunStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedRunTest {
    @Test
    void aRunStartedFromPlainJavaIsReadToTheEndAcrossAReconnect(@TempDir Path dir) throws Exception {
        // printf's argument is one argv element: no shell ever sees it
        EmbeddedRun.Result r = EmbeddedRun.run(dir, List.of("printf", "%s\\n", "alpha", "beta; rm -rf /", "gamma"));
        assertEquals(RunStatus.SUCCEEDED, r.run().status());
        assertEquals("{\"startedBy\":\"EmbeddedRun\"}", r.run().metadata());
        for (int i = 0; i < r.entries().size(); i++) {
            assertEquals(i + 1, r.entries().get(i).seq(), "every entry once, in order, across the reconnect");
        }
        assertEquals(List.of("{\"line\":\"alpha\"}", "{\"line\":\"beta; rm -rf /\"}", "{\"line\":\"gamma\"}"),
                r.entries().stream().filter(e -> e.kind() == EntryKind.NATIVE).map(RunEntry::payload).toList());
        assertEquals(List.of("{\"type\":\"line\",\"length\":5}", "{\"type\":\"line\",\"length\":14}",
                        "{\"type\":\"line\",\"length\":5}", "{\"type\":\"complete\",\"exitCode\":0}"),
                r.entries().stream().filter(e -> e.kind() == EntryKind.EVENT).map(RunEntry::payload).toList());
        assertEquals("{\"status\":\"succeeded\",\"exitCode\":0}", r.entries().getLast().payload());
    }
}
