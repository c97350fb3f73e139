package org.agentworkspace.testkit.contract;

import java.net.http.HttpRequest;
import java.util.Objects;

/** How a contract request authenticates. The values never appear in {@code toString()}. */
public sealed interface Credential {

    /** Adds the credential to a request. */
    void applyTo(HttpRequest.Builder request);

    /** No credential at all. */
    static Credential none() {
        return None.INSTANCE;
    }

    /** The session cookie {@code token=<jwt>}. */
    static Credential cookie(String token) {
        return new Cookie(token);
    }

    /** {@code Authorization: Bearer <value>} (a JWT or an API key). */
    static Credential bearer(String value) {
        return new Bearer(value);
    }

    /** {@code X-API-Key: <key>}. */
    static Credential apiKeyHeader(String key) {
        return new ApiKeyHeader(key);
    }

    /** No credential. */
    enum None implements Credential {
        INSTANCE;

        @Override
        public void applyTo(HttpRequest.Builder request) {
        }
    }

    /** The {@code token} cookie. */
    record Cookie(String token) implements Credential {
        public Cookie {
            Objects.requireNonNull(token, "token");
        }

        @Override
        public void applyTo(HttpRequest.Builder request) {
            request.header("Cookie", "token=" + token);
        }

        @Override
        public String toString() {
            return "Cookie[token=***]";
        }
    }

    /** A bearer credential. */
    record Bearer(String value) implements Credential {
        public Bearer {
            Objects.requireNonNull(value, "value");
        }

        @Override
        public void applyTo(HttpRequest.Builder request) {
            request.header("Authorization", "Bearer " + value);
        }

        @Override
        public String toString() {
            return "Bearer[***]";
        }
    }

    /** The {@code X-API-Key} header. */
    record ApiKeyHeader(String key) implements Credential {
        public ApiKeyHeader {
            Objects.requireNonNull(key, "key");
        }

        @Override
        public void applyTo(HttpRequest.Builder request) {
            request.header("X-API-Key", key);
        }

        @Override
        public String toString() {
            return "ApiKeyHeader[***]";
        }
    }
}
