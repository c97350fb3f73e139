package org.agentworkspace.testkit.historygen;

/** Minimal JSON string writing into a StringBuilder (the generator writes its lines by hand, for speed). */
final class Json {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private Json() {
    }

    /** Appends {@code s} as a JSON string literal (quotes included); null as {@code null}. */
    static StringBuilder q(StringBuilder sb, CharSequence s) {
        if (s == null) {
            return sb.append("null");
        }
        sb.append('"');
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 15]);
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"');
    }

    /** {@code ,"name":"value"} */
    static StringBuilder f(StringBuilder sb, String name, CharSequence value) {
        sb.append(",\"").append(name).append("\":");
        return q(sb, value);
    }

    /** {@code ,"name":value} for a number or literal. */
    static StringBuilder n(StringBuilder sb, String name, long value) {
        return sb.append(",\"").append(name).append("\":").append(value);
    }
}
