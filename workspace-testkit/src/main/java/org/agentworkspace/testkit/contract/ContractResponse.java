package org.agentworkspace.testkit.contract;

import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpHeaders;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A response received by {@link ContractClient}, already checked against the OpenAPI document.
 *
 * @param method the request method
 * @param target the request path and query
 * @param status the status code
 * @param headers the response headers
 * @param body the body as text
 */
public record ContractResponse(String method, String target, int status, HttpHeaders headers, String body) {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The body parsed as JSON; fails the test when it is not JSON. */
    public JsonNode json() {
        try {
            return JSON.readTree(body);
        } catch (JsonProcessingException e) {
            return fail(describe() + ": body is not JSON: " + body);
        }
    }

    /** The first value of a header. */
    public Optional<String> header(String name) {
        return headers.firstValue(name);
    }

    /** All values of a header. */
    public List<String> headerValues(String name) {
        return headers.allValues(name);
    }

    /** The value of a cookie set by this response ({@code Set-Cookie}), if it sets that cookie. */
    public Optional<SetCookie> setCookie(String name) {
        for (String value : headers.allValues("set-cookie")) {
            SetCookie cookie = SetCookie.parse(value);
            if (cookie.name().equals(name)) {
                return Optional.of(cookie);
            }
        }
        return Optional.empty();
    }

    /** {@code error.code} of an error envelope, or an empty string. */
    public String errorCode() {
        return json().path("error").path("code").asText("");
    }

    /** Fails the test unless the status is one of {@code expected}. */
    public ContractResponse expectStatus(int... expected) {
        for (int s : expected) {
            if (s == status) {
                return this;
            }
        }
        return fail(describe() + ": expected status " + Arrays.toString(expected) + ", body: " + abbreviated());
    }

    /** Fails the test unless this is an error envelope with this status and code. */
    public ContractResponse expectError(int expectedStatus, String expectedCode) {
        expectStatus(expectedStatus);
        if (!expectedCode.equals(errorCode())) {
            fail(describe() + ": expected error code " + expectedCode + ", body: " + abbreviated());
        }
        return this;
    }

    /** "METHOD target -> status", for messages. */
    public String describe() {
        return method.toUpperCase(Locale.ROOT) + " " + ContractClient.redactQuery(target) + " -> " + status;
    }

    private String abbreviated() {
        return ContractClient.redactBody(body);
    }

    /**
     * One {@code Set-Cookie} header.
     *
     * @param name the cookie name
     * @param value the cookie value
     * @param attributes the attribute part, for example {@code Path=/; HttpOnly; Max-Age=0}
     */
    public record SetCookie(String name, String value, String attributes) {
        static SetCookie parse(String header) {
            String[] parts = header.split(";", 2);
            String[] pair = parts[0].split("=", 2);
            return new SetCookie(pair[0].trim(), pair.length > 1 ? pair[1].trim() : "",
                    parts.length > 1 ? parts[1].trim() : "");
        }

        /** Whether the attributes contain this flag or {@code name=...} attribute (case-insensitive). */
        public boolean hasAttribute(String attribute) {
            for (String a : attributes.split(";")) {
                String key = a.split("=", 2)[0].trim();
                if (key.equalsIgnoreCase(attribute)) {
                    return true;
                }
            }
            return false;
        }

        /** The value of an attribute such as {@code Max-Age}. */
        public Optional<String> attribute(String attribute) {
            for (String a : attributes.split(";")) {
                String[] kv = a.split("=", 2);
                if (kv[0].trim().equalsIgnoreCase(attribute)) {
                    return Optional.of(kv.length > 1 ? kv[1].trim() : "");
                }
            }
            return Optional.empty();
        }

        /** Whether this header removes the cookie (empty value, {@code Max-Age=0} or an expiry in the past). */
        public boolean clears() {
            if (attribute("Max-Age").map(v -> v.equals("0") || v.startsWith("-")).orElse(false)) {
                return true;
            }
            return attribute("Expires").map(SetCookie::isPast).orElse(false) || value.isEmpty();
        }

        private static boolean isPast(String httpDate) {
            try {
                return java.time.ZonedDateTime.parse(httpDate, java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME)
                        .toInstant().isBefore(java.time.Instant.now());
            } catch (java.time.format.DateTimeParseException e) {
                return false;
            }
        }

        @Override
        public String toString() {
            return "SetCookie[" + name + "=***; " + attributes + "]";
        }
    }
}
