package org.agentworkspace.core.providers;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Text edits of {@code [mcp_servers.<name>]} tables in a codex {@code config.toml}, so that everything else of the
 * file (comments, order, formatting) stays as it was. A server's tables are its header {@code [mcp_servers.<name>]}
 * and sub-tables such as {@code [mcp_servers.<name>.env]}, each up to the next table header (comments and blank
 * lines right before the next header stay with it). A new server is appended at the end. The caller re-parses the
 * result to verify it: an entry written another way (an inline table, dotted keys) is not removed by this, and the
 * check then refuses the edit instead of writing a broken file.
 */
final class TomlMcpTables {
    private static final Pattern BARE = Pattern.compile("[A-Za-z0-9_-]+");

    private TomlMcpTables() {
    }

    /** {@code text} without the tables of server {@code name}. */
    static String remove(String text, String name) {
        List<String> lines = splitKeepingBreaks(text);
        boolean[] drop = new boolean[lines.size()];
        boolean inMultiline = false;
        String delimiter = null;
        int sectionStart = -1;
        for (int i = 0; i <= lines.size(); i++) {
            boolean header = false;
            List<String> path = null;
            if (i < lines.size()) {
                String line = lines.get(i);
                if (!inMultiline) {
                    path = headerPath(line);
                    header = path != null;
                }
                // track multi-line strings so a "[" line inside one is not taken for a header
                for (String d : new String[] {"\"\"\"", "'''"}) {
                    int count = occurrences(line, d);
                    if (!inMultiline && count % 2 == 1) {
                        inMultiline = true;
                        delimiter = d;
                    } else if (inMultiline && d.equals(delimiter) && count % 2 == 1) {
                        inMultiline = false;
                        delimiter = null;
                    }
                }
            }
            if (header || i == lines.size()) {
                if (sectionStart >= 0) {
                    int end = i - 1;
                    while (end > sectionStart && trailingNote(lines.get(end))) {
                        end--;
                    }
                    for (int k = sectionStart; k <= end; k++) {
                        drop[k] = true;
                    }
                    sectionStart = -1;
                }
                if (header && path.size() >= 2 && path.get(0).equals("mcp_servers") && path.get(1).equals(name)) {
                    sectionStart = i;
                }
            }
        }
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < lines.size(); i++) {
            if (!drop[i]) {
                out.append(lines.get(i));
            }
        }
        return out.toString();
    }

    /** The tables of a new server, ready to append. */
    static String tables(McpServerSpec spec) {
        String key = "mcp_servers." + key(spec.name());
        StringBuilder b = new StringBuilder();
        b.append('[').append(key).append("]\n");
        b.append("command = ").append(string(spec.command())).append('\n');
        b.append("args = [");
        for (int i = 0; i < spec.args().size(); i++) {
            b.append(i == 0 ? "" : ", ").append(string(spec.args().get(i)));
        }
        b.append("]\n");
        if (!spec.env().isEmpty()) {
            b.append('\n').append('[').append(key).append(".env]\n");
            for (Map.Entry<String, String> e : spec.env().entrySet()) {
                b.append(key(e.getKey())).append(" = ").append(string(e.getValue())).append('\n');
            }
        }
        return b.toString();
    }

    /** {@code text} with {@code addition} appended after one blank line. */
    static String append(String text, String addition) {
        StringBuilder b = new StringBuilder(text);
        if (b.length() > 0) {
            if (b.charAt(b.length() - 1) != '\n') {
                b.append('\n');
            }
            if (!(b.length() >= 2 && b.charAt(b.length() - 2) == '\n')) {
                b.append('\n');
            }
        }
        return b.append(addition).toString();
    }

    /** A TOML key: bare when possible, else a basic string. */
    static String key(String k) {
        return BARE.matcher(k).matches() ? k : string(k);
    }

    /** A TOML basic string with every needed escape. */
    static String string(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\b' -> b.append("\\b");
                case '\t' -> b.append("\\t");
                case '\n' -> b.append("\\n");
                case '\f' -> b.append("\\f");
                case '\r' -> b.append("\\r");
                default -> {
                    if (c < 0x20 || c == 0x7f) {
                        b.append(String.format("\\u%04X", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }

    /** The key path of a table header line ({@code [a.b]} or {@code [[a.b]]}), or null for any other line. */
    static List<String> headerPath(String line) {
        String t = line.strip();
        if (!t.startsWith("[")) {
            return null;
        }
        boolean array = t.startsWith("[[");
        int i = array ? 2 : 1;
        List<String> path = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        boolean any = false;
        while (i < t.length()) {
            char c = t.charAt(i);
            if (c == '"' || c == '\'') {
                int j = i + 1;
                StringBuilder q = new StringBuilder();
                while (j < t.length() && t.charAt(j) != c) {
                    if (c == '"' && t.charAt(j) == '\\' && j + 1 < t.length()) {
                        char n = t.charAt(j + 1);
                        switch (n) {
                            case 'n' -> q.append('\n');
                            case 't' -> q.append('\t');
                            case 'u' -> {
                                if (j + 5 < t.length()) {
                                    q.append((char) Integer.parseInt(t.substring(j + 2, j + 6), 16));
                                    j += 4;
                                }
                            }
                            default -> q.append(n);
                        }
                        j += 2;
                        continue;
                    }
                    q.append(t.charAt(j));
                    j++;
                }
                if (j >= t.length()) {
                    return null;
                }
                cur.append(q);
                any = true;
                i = j + 1;
            } else if (c == '.') {
                if (!any) {
                    return null;
                }
                path.add(cur.toString().strip());
                cur.setLength(0);
                any = false;
                i++;
            } else if (c == ']') {
                if (!any) {
                    return null;
                }
                path.add(cur.toString().strip());
                return path;
            } else if (Character.isWhitespace(c)) {
                i++;
            } else {
                cur.append(c);
                any = true;
                i++;
            }
        }
        return null;
    }

    private static boolean trailingNote(String line) {
        String t = line.strip();
        return t.isEmpty() || t.startsWith("#");
    }

    private static int occurrences(String line, String d) {
        int n = 0;
        int at = line.indexOf(d);
        while (at >= 0) {
            n++;
            at = line.indexOf(d, at + d.length());
        }
        return n;
    }

    private static List<String> splitKeepingBreaks(String text) {
        List<String> out = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) == '\n') {
                out.add(text.substring(start, i + 1));
                start = i + 1;
            }
        }
        if (start < text.length()) {
            out.add(text.substring(start));
        }
        return out;
    }
}
