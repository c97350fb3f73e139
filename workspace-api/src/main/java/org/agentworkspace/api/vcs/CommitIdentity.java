package org.agentworkspace.api.vcs;

import java.util.Objects;

/**
 * Author and committer of a commit made through the API.
 *
 * @param name display name; no {@code <}, {@code >} or control characters
 * @param email address; no {@code <}, {@code >} or control characters
 */
public record CommitIdentity(String name, String email) {
    public CommitIdentity {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(email, "email");
        if (name.isBlank() || email.isBlank()) {
            throw new IllegalArgumentException("name and email must not be blank");
        }
        check(name);
        check(email);
    }

    private static void check(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < 0x20 || c == 0x7f || c == '<' || c == '>') {
                throw new IllegalArgumentException("identity contains a control character or angle bracket");
            }
        }
    }
}
