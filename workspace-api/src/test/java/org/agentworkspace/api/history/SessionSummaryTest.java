package org.agentworkspace.api.history;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

class SessionSummaryTest {
    /** What a title made of a first prompt is: the definition the list code used before it stopped using a regex. */
    private static String reference(String firstPrompt) {
        String oneLine = firstPrompt.strip().replaceAll("\\s+", " ");
        return oneLine.length() <= 80 ? oneLine : oneLine.substring(0, 79) + "\u2026";
    }

    @Test
    void aPromptTitleIsOneLineCutTo80Chars() {
        assertEquals("fix the flaky test", SessionSummary.promptTitle("  fix the\n\n  flaky\ttest \r\n"));
        String longer = "word ".repeat(30);
        String t = SessionSummary.promptTitle(longer);
        assertEquals(80, t.length());
        assertEquals(longer.substring(0, 79) + "\u2026", t);
        assertEquals("x".repeat(80), SessionSummary.promptTitle("x".repeat(80)));
        assertEquals("x".repeat(79) + "\u2026", SessionSummary.promptTitle("x".repeat(81)));
        // whitespace \s does not match stays; Unicode spaces only go at the ends (strip)
        assertEquals("a\u00A0b\u2003c", SessionSummary.promptTitle("\u2003 a\u00A0b\u2003c\u001F"));
    }

    @Test
    void aPromptTitleIsWhatTheRegexDefinitionGives() {
        Random r = new Random(7);
        List<Character> alphabet = List.of('a', 'b', 'Z', '0', ' ', '\t', '\n', '\u000B', '\f', '\r', '\u001C',
                '\u00A0', '\u2003', '\u3000', '\u00E9', '\uD83D', '\uDE00', '.', '-');
        for (int i = 0; i < 20_000; i++) {
            int len = r.nextInt(i % 10 == 0 ? 400 : 120);
            StringBuilder b = new StringBuilder();
            for (int k = 0; k < len; k++) {
                b.append(alphabet.get(r.nextInt(alphabet.size())));
            }
            String prompt = b.toString();
            if (prompt.isBlank()) {
                continue;
            }
            assertEquals(reference(prompt), SessionSummary.promptTitle(prompt), () -> "prompt " + prompt.chars()
                    .mapToObj(c -> String.format("%04x", c)).toList());
        }
    }
}
