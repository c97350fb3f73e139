package org.agentworkspace.testkit.mockllm;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The scenario markers found in a prompt, e.g. {@code [[mock:tool:write_file path=a.txt content=hi]]}.
 *
 * <p>Grammar: {@code [[mock:KIND[:ARG] [key=value | key="quoted value"]...]]}. Unknown kinds are kept (and ignored by
 * the planner) so a typo shows up in {@link MockLlmServer#requests()} rather than failing silently in the CLI.
 *
 * @param markers the markers in order of appearance
 * @param plainText the prompt with every marker removed and whitespace collapsed
 */
public record Script(List<Marker> markers, String plainText) {

    private static final Pattern MARKER = Pattern.compile(
            "\\[\\[mock:([a-z_]+)(?::([^\\s\\]]+))?((?:\\s+[A-Za-z_][A-Za-z0-9_]*=(?:\"(?:[^\"\\\\]|\\\\.)*\"|[^\\s\\]]+))*)\\s*]]");
    private static final Pattern PARAM = Pattern.compile(
            "([A-Za-z_][A-Za-z0-9_]*)=(?:\"((?:[^\"\\\\]|\\\\.)*)\"|([^\\s\\]]+))");

    public Script {
        markers = List.copyOf(markers);
    }

    /** One marker: {@code kind} (tool, error, slow, long, reply), optional {@code arg} after the second colon, params. */
    public record Marker(String kind, String arg, Map<String, String> params) {
        public Marker {
            params = Map.copyOf(params);
        }

        public Optional<String> param(String name) {
            return Optional.ofNullable(params.get(name));
        }
    }

    /** Parses every marker in {@code text}. Never fails: malformed markers are treated as plain text. */
    public static Script parse(String text) {
        if (text == null || text.isEmpty()) {
            return new Script(List.of(), "");
        }
        List<Marker> found = new ArrayList<>();
        Matcher m = MARKER.matcher(text);
        StringBuilder rest = new StringBuilder();
        int last = 0;
        while (m.find()) {
            rest.append(text, last, m.start()).append(' ');
            last = m.end();
            Map<String, String> params = new LinkedHashMap<>();
            Matcher p = PARAM.matcher(m.group(3) == null ? "" : m.group(3));
            while (p.find()) {
                String value = p.group(2) != null ? unescape(p.group(2)) : p.group(3);
                params.put(p.group(1), value);
            }
            found.add(new Marker(m.group(1), m.group(2) == null ? "" : m.group(2), params));
        }
        rest.append(text.substring(last));
        return new Script(found, rest.toString().replaceAll("\\s+", " ").strip());
    }

    public Optional<Marker> find(String kind) {
        return markers.stream().filter(mk -> mk.kind().equals(kind)).findFirst();
    }

    private static String unescape(String quoted) {
        StringBuilder sb = new StringBuilder(quoted.length());
        for (int i = 0; i < quoted.length(); i++) {
            char c = quoted.charAt(i);
            if (c == '\\' && i + 1 < quoted.length()) {
                char n = quoted.charAt(++i);
                sb.append(switch (n) {
                    case 'n' -> '\n';
                    case 't' -> '\t';
                    default -> n;
                });
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }
}
