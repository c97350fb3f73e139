package org.agentworkspace.core.providers;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The part of npm's semver ranges that {@code engines.node} fields use: comparator sets joined by {@code ||}, each of
 * {@code >= > <= < =} comparisons, caret and tilde ranges, x-ranges ({@code 22.x}, {@code 22}, {@code *}) and hyphen
 * ranges ({@code 18 - 22}). Pre-release tags are ignored. Anything unparseable is treated as satisfied (npm would
 * not refuse either: it only warns on engines).
 */
final class NodeVersions {
    private static final Pattern VERSION = Pattern.compile("v?(\\d+)(?:\\.(\\d+|[xX*]))?(?:\\.(\\d+|[xX*]))?.*");
    private static final Pattern COMPARATOR = Pattern.compile("(>=|<=|>|<|=|\\^|~)?\\s*(v?[0-9xX*][0-9A-Za-z.*+-]*)");

    private NodeVersions() {
    }

    /** {@code [major, minor, patch]} of a version text such as {@code v22.23.3}, or empty. */
    static Optional<int[]> parse(String version) {
        if (version == null) {
            return Optional.empty();
        }
        Matcher m = VERSION.matcher(version.strip());
        if (!m.matches()) {
            return Optional.empty();
        }
        return Optional.of(new int[] {num(m.group(1)), num(m.group(2)), num(m.group(3))});
    }

    /** Whether {@code version} satisfies {@code range}; a null or blank range is always satisfied. */
    static boolean satisfies(String version, String range) {
        if (range == null || range.isBlank()) {
            return true;
        }
        Optional<int[]> v = parse(version);
        if (v.isEmpty()) {
            return false;
        }
        try {
            for (String set : range.split("\\|\\|")) {
                if (setSatisfied(v.get(), set.strip())) {
                    return true;
                }
            }
            return false;
        } catch (IllegalArgumentException e) {
            return true;
        }
    }

    private static boolean setSatisfied(int[] v, String set) {
        if (set.isEmpty() || set.equals("*") || set.equalsIgnoreCase("x")) {
            return true;
        }
        String[] hyphen = set.split("\\s+-\\s+");
        if (hyphen.length == 2) {
            return cmp(v, lower(hyphen[0])) >= 0 && upperInclusive(v, hyphen[1]);
        }
        List<String> parts = new ArrayList<>();
        Matcher m = COMPARATOR.matcher(set);
        int at = 0;
        while (m.find()) {
            if (!set.substring(at, m.start()).isBlank()) {
                throw new IllegalArgumentException("unparseable range");
            }
            parts.add((m.group(1) == null ? "" : m.group(1)) + m.group(2));
            at = m.end();
        }
        if (!set.substring(at).isBlank() || parts.isEmpty()) {
            throw new IllegalArgumentException("unparseable range");
        }
        for (String p : parts) {
            if (!one(v, p)) {
                return false;
            }
        }
        return true;
    }

    private static boolean one(int[] v, String c) {
        String op = c.startsWith(">=") || c.startsWith("<=") ? c.substring(0, 2)
                : c.startsWith(">") || c.startsWith("<") || c.startsWith("=") || c.startsWith("^") || c.startsWith("~")
                ? c.substring(0, 1) : "";
        String ver = c.substring(op.length());
        Matcher m = VERSION.matcher(ver);
        if (!m.matches()) {
            throw new IllegalArgumentException("unparseable version");
        }
        int parts = m.group(3) != null && !wild(m.group(3)) ? 3 : m.group(2) != null && !wild(m.group(2)) ? 2 : 1;
        int[] b = {num(m.group(1)), parts >= 2 ? num(m.group(2)) : 0, parts >= 3 ? num(m.group(3)) : 0};
        return switch (op) {
            case ">=" -> cmp(v, b) >= 0;
            case ">" -> parts == 3 ? cmp(v, b) > 0 : cmp(v, bump(b, parts)) >= 0;
            case "<=" -> parts == 3 ? cmp(v, b) <= 0 : cmp(v, bump(b, parts)) < 0;
            case "<" -> cmp(v, b) < 0;
            case "^" -> cmp(v, b) >= 0 && cmp(v, caretUpper(b, parts)) < 0;
            case "~" -> cmp(v, b) >= 0 && cmp(v, bump(b, parts == 1 ? 1 : 2)) < 0;
            default -> parts == 3 ? cmp(v, b) == 0 : cmp(v, b) >= 0 && cmp(v, bump(b, parts)) < 0;
        };
    }

    private static int[] lower(String ver) {
        int[] p = parse(ver).orElseThrow(IllegalArgumentException::new);
        return p;
    }

    private static boolean upperInclusive(int[] v, String ver) {
        return one(v, "<=" + ver.strip());
    }

    /** The first version above an x-range of {@code parts} given parts. */
    private static int[] bump(int[] b, int parts) {
        return switch (parts) {
            case 1 -> new int[] {b[0] + 1, 0, 0};
            case 2 -> new int[] {b[0], b[1] + 1, 0};
            default -> new int[] {b[0], b[1], b[2] + 1};
        };
    }

    private static int[] caretUpper(int[] b, int parts) {
        if (b[0] > 0 || parts == 1) {
            return new int[] {b[0] + 1, 0, 0};
        }
        if (b[1] > 0 || parts == 2) {
            return new int[] {0, b[1] + 1, 0};
        }
        return new int[] {0, 0, b[2] + 1};
    }

    private static int cmp(int[] a, int[] b) {
        for (int i = 0; i < 3; i++) {
            int c = Integer.compare(a[i], b[i]);
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    private static boolean wild(String s) {
        return s.equalsIgnoreCase("x") || s.equals("*");
    }

    private static int num(String s) {
        if (s == null || wild(s)) {
            return 0;
        }
        return Integer.parseInt(s);
    }
}
