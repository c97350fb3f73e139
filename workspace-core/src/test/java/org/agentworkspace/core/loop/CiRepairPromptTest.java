package org.agentworkspace.core.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/** The bounded tail of a CI log that a repair plan's prompt holds. */
class CiRepairPromptTest {
    @Test
    void aSingleLineLongerThanTheBoundGivesItsEnd() {
        String log = "npm ERR! " + "x".repeat(40_000) + " ERROR: the real cause";
        CiRepairPlans.Prompt p = CiRepairPlans.prompt(log, null);
        assertEquals(1, p.linesUsed());
        assertTrue(p.text().contains("ERROR: the real cause"), "the line's end is in the prompt");
        assertTrue(p.text().getBytes(StandardCharsets.UTF_8).length < CiRepairPlans.TAIL_BYTES + 2_000);
    }

    @Test
    void theEndOfALineIsCutAtACodePoint() {
        String line = "\ud83d\ude00".repeat(10_000); // 4 bytes each
        String end = CiRepairPlans.tailOf(line, 4 * 3 + 2);
        assertEquals("\ud83d\ude00".repeat(3), end);
        assertEquals("b\u00e9", CiRepairPlans.tailOf("a\u00e9b\u00e9", 3));
    }

    @Test
    void manyLinesKeepTheLastOnesWithinTheBounds() {
        StringBuilder log = new StringBuilder();
        for (int i = 0; i < 1_000; i++) {
            log.append("line ").append(i).append('\n');
        }
        CiRepairPlans.Prompt p = CiRepairPlans.prompt(log.toString(), "build");
        assertEquals(CiRepairPlans.TAIL_LINES, p.linesUsed());
        assertTrue(p.text().contains("line 999") && !p.text().contains("line 799\n"), p.text().length() + "");
    }

    @Test
    void labelsAndJobNamesAreOneLineThatReadsAsItIs() {
        for (String bad : java.util.List.of("a\u2028b", "a\u2029b", "file\u202Etxt.exe", "x\u2066y", "a\nb")) {
            org.junit.jupiter.api.Assertions.assertThrows(org.agentworkspace.api.WorkspaceException.Validation.class,
                    () -> Checkpoints.checkLabel(bad), bad);
            org.junit.jupiter.api.Assertions.assertThrows(org.agentworkspace.api.WorkspaceException.Validation.class,
                    () -> CiRepairPlans.checkFailingJob(bad), bad);
        }
        assertEquals("caf\u00e9 \ud83d\udc68\u200d\ud83d\udc69", Checkpoints.checkLabel(" caf\u00e9 \ud83d\udc68\u200d\ud83d\udc69 "),
                "letters and emoji (with their joiners) stay");
        assertTrue(!CiRepairPlans.prompt("ok\nerror \u202Egnp.exe", null).text().contains("\u202E"));
    }
}
