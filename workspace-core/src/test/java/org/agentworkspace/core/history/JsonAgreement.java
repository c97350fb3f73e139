package org.agentworkspace.core.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Holds {@link Json#parseObject} (the hand-written {@link JsonLine}) against {@link Json#parseObjectJackson} (the
 * Jackson path it replaces): both accept or both reject a line, and accepted lines give the same tree: same node
 * classes, same keys in the same order, same values, same {@code toString()}.
 */
final class JsonAgreement {
    private JsonAgreement() {
    }

    /** Every keep set a reader passes: all fields (null), each JSONL reader's, codex's peeks, and none. */
    static List<Set<String>> keepSets() {
        List<Set<String>> out = new ArrayList<>();
        out.add(null);
        out.add(new ClaudeHistoryReader().fields());
        out.add(new CodexHistoryReader().fields());
        out.add(new QwenHistoryReader().fields());
        out.add(new GeminiHistoryReader().fields());
        out.add(Set.of("type", "payload"));
        out.add(Set.of("id", "thread_name"));
        out.add(Set.of());
        return Collections.unmodifiableList(out);
    }

    /** The tree, or the failure, of one parser. */
    record Outcome(ObjectNode tree, Throwable error) {
        boolean accepted() {
            return error == null;
        }
    }

    static Outcome jackson(byte[] line, Set<String> keep) {
        try {
            // a factory per line: Jackson's shared table of names would make the verdict on a name holding 0xFF
            // bytes depend on the lines parsed before (Json.newFactory)
            return new Outcome(Json.parseObjectJackson(Json.newFactory(), line, 0, line.length, keep), null);
        } catch (IOException | RuntimeException e) {
            return new Outcome(null, e);
        }
    }

    static Outcome fast(byte[] line, Set<String> keep) {
        try {
            return new Outcome(Json.parseObject(line, 0, line.length, keep), null);
        } catch (IOException | RuntimeException e) {
            return new Outcome(null, e);
        }
    }

    /** Asserts both parsers agree on {@code line} with {@code keep}; returns whether it was accepted. */
    static boolean assertAgree(String label, byte[] line, Set<String> keep) {
        Outcome want = jackson(line, keep);
        Outcome got = fast(line, keep);
        String where = label + " keep=" + keep + " line=" + preview(line);
        if (want.accepted() != got.accepted()) {
            fail(where + ": Jackson " + (want.accepted() ? "accepts" : "rejects (" + want.error() + ")")
                    + " but JsonLine " + (got.accepted() ? "accepts: " + render(got.tree()) : "rejects (" + got.error()
                    + ")"));
        }
        if (!got.accepted()) {
            // JsonlHistoryReader counts IOException and RuntimeException as a corrupt line; JsonLine throws only
            // the first
            assertTrue(got.error() instanceof IOException || got.error().getClass() == want.error().getClass(),
                    where + ": unexpected failure type " + got.error());
            return false;
        }
        sameTree(where, "$", want.tree(), got.tree());
        if (depth(want.tree()) < 500) {
            // equals() recurses: a deep tree would overflow the stack (sameTree has compared it already)
            assertEquals(want.tree(), got.tree(), where);
        }
        assertEquals(render(want.tree()), render(got.tree()), where);
        return true;
    }

    /** A pair of nodes to compare, and how the walk got there (for the message). */
    private record Step(JsonNode want, JsonNode got, Step parent, String name) {
        String path() {
            return parent == null ? name : parent.path() + name;
        }
    }

    /** Same node classes, same field order, same values, all the way down (without recursion: 2000 levels). */
    static void sameTree(String where, String path, JsonNode want, JsonNode got) {
        ArrayDeque<Step> todo = new ArrayDeque<>();
        todo.push(new Step(want, got, null, path));
        while (!todo.isEmpty()) {
            Step s = todo.pop();
            JsonNode w = s.want();
            JsonNode g = s.got();
            if (w.getClass() != g.getClass()) {
                fail(where + " at " + s.path() + ": " + w.getClass().getSimpleName() + " " + render(w) + " but got "
                        + g.getClass().getSimpleName() + " " + render(g));
            }
            if (w.isObject()) {
                List<String> wantNames = w.properties().stream().map(Map.Entry::getKey).toList();
                List<String> gotNames = g.properties().stream().map(Map.Entry::getKey).toList();
                assertEquals(wantNames, gotNames, () -> where + " at " + s.path() + ": field names");
                Iterator<Map.Entry<String, JsonNode>> wi = w.properties().iterator();
                Iterator<Map.Entry<String, JsonNode>> gi = g.properties().iterator();
                while (wi.hasNext()) {
                    Map.Entry<String, JsonNode> a = wi.next();
                    todo.push(new Step(a.getValue(), gi.next().getValue(), s, "." + a.getKey()));
                }
            } else if (w.isArray()) {
                assertEquals(w.size(), g.size(), () -> where + " at " + s.path() + ": array size");
                for (int i = 0; i < w.size(); i++) {
                    todo.push(new Step(w.get(i), g.get(i), s, "[" + i + "]"));
                }
            } else if (!w.equals(g)) {
                fail(where + " at " + s.path() + ": " + render(w) + " but got " + render(g) + " (chars "
                        + Arrays.toString(chars(w.asText())) + " vs " + Arrays.toString(chars(g.asText())) + ")");
            }
        }
    }

    private static int[] chars(String s) {
        return s.length() > 40 ? new int[0] : s.chars().toArray();
    }

    /** How deep containers nest in {@code n} (1 for a scalar). */
    static int depth(JsonNode n) {
        record At(JsonNode node, int depth) {
        }
        ArrayDeque<At> todo = new ArrayDeque<>();
        todo.push(new At(n, 1));
        int max = 1;
        while (!todo.isEmpty()) {
            At a = todo.pop();
            max = Math.max(max, a.depth());
            for (JsonNode child : a.node()) {
                todo.push(new At(child, a.depth() + 1));
            }
        }
        return max;
    }

    /** toString(), or the failure (Jackson refuses to write trees nested deeper than 1000). */
    static String render(JsonNode n) {
        try {
            return n.toString();
        } catch (RuntimeException e) {
            return "!" + e.getClass().getName();
        }
    }

    /** The line with non-printable bytes as \xNN, cut to 300 characters. */
    static String preview(byte[] line) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < line.length && sb.length() < 300; i++) {
            int c = line[i] & 0xFF;
            if (c >= 0x20 && c < 0x7F) {
                sb.append((char) c);
            } else {
                sb.append(String.format("\\x%02X", c));
            }
        }
        if (sb.length() >= 300) {
            sb.append("... (").append(line.length).append(" bytes)");
        }
        return sb.toString();
    }
}
