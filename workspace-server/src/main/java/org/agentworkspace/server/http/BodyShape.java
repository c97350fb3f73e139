package org.agentworkspace.server.http;

import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

import com.fasterxml.jackson.databind.JsonNode;

import org.agentworkspace.api.WorkspaceException;

/**
 * The top-level fields a route's JSON body may hold, as the OpenAPI document lists them
 * ({@link OpenApiDocument#bodyFields()}). A field outside the list is refused with a 400 that names it and the
 * fields the route takes: a misspelt {@code {"agent":"codex"}} must not quietly run the default provider.
 *
 * @param route  "METHOD path", for the message
 * @param fields the allowed names (empty: the route takes no body fields)
 */
record BodyShape(String route, Set<String> fields) {
    BodyShape {
        Objects.requireNonNull(route, "route");
        fields = Set.copyOf(fields);
    }

    /** Throws a 400 {@code VALIDATION_FAILED} naming the first field of {@code body} that is not allowed. */
    void check(JsonNode body) {
        for (var it = body.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!fields.contains(f)) {
                throw WorkspaceException.Validation.of(fields.isEmpty()
                        ? "unknown field " + printable(f) + ": " + route + " takes no body fields"
                        : "unknown field " + printable(f) + ": " + route + " takes "
                                + String.join(", ", new TreeSet<>(fields)));
            }
        }
    }

    /** At most 64 characters, control and format characters shown as {@code ?}. */
    private static String printable(String s) {
        StringBuilder b = new StringBuilder();
        s.codePoints().limit(64).forEach(c -> b.appendCodePoint(
                Character.isISOControl(c) || Character.getType(c) == Character.FORMAT ? '?' : c));
        return "'" + b + (s.codePointCount(0, s.length()) > 64 ? "…" : "") + "'";
    }
}
