package org.agentworkspace.core.secrets;

import java.util.Objects;
import java.util.Optional;

import org.agentworkspace.api.ErrorCodes;
import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.vcs.GitCredentials;

/**
 * Each user's git token for HTTPS remotes (push and pull), kept in {@link UserSecrets} as kind {@value #KIND}.
 * The token is never returned to a client: {@link #status} gives only whether one is set and its mask.
 *
 * <p>Rules: the token is 1–4096 printable characters without spaces; the optional user name is 1–256 printable
 * characters without spaces or {@code :} (HTTP Basic cannot carry a colon in the user name). Without a user name,
 * {@value #DEFAULT_USERNAME} is sent (GitHub accepts any non-empty name with a personal access token).
 */
public final class GitTokens {
    /** The {@link UserSecrets} kind. */
    public static final String KIND = "git-token";
    /** The user name sent when none is stored. */
    public static final String DEFAULT_USERNAME = "x-access-token";
    private static final int MAX_TOKEN = 4096;
    private static final int MAX_USERNAME = 256;

    private final UserSecrets secrets;

    private GitTokens(UserSecrets secrets) {
        this.secrets = secrets;
    }

    public static GitTokens create(UserSecrets secrets) {
        return new GitTokens(Objects.requireNonNull(secrets, "secrets"));
    }

    /**
     * Whether a token is set, and its mask.
     *
     * @param masked {@code "…"} plus at most the last four characters, or {@code null} when none is set
     * @param username the stored user name, or {@code null}
     */
    public record Status(boolean configured, String masked, String username) {
    }

    /** Stores (replaces) the user's token. */
    public Status set(long userId, String token, String username) {
        if (token == null || token.isEmpty() || token.length() > MAX_TOKEN || !printableWithoutSpace(token)) {
            throw WorkspaceException.Validation.of("token must be 1-" + MAX_TOKEN
                    + " printable characters without spaces");
        }
        if (username != null && (username.isEmpty() || username.length() > MAX_USERNAME
                || !printableWithoutSpace(username) || username.indexOf(':') >= 0)) {
            throw WorkspaceException.Validation.of("username must be 1-" + MAX_USERNAME
                    + " printable characters without spaces or ':'");
        }
        UserSecrets.Info info = secrets.put(userId, KIND, token, username);
        return new Status(true, info.masked(), username);
    }

    public Status status(long userId) {
        return secrets.find(userId, KIND).map(i -> new Status(true, i.masked(), i.label()))
                .orElse(new Status(false, null, null));
    }

    /** {@code true} when a token was removed. */
    public boolean delete(long userId) {
        return secrets.delete(userId, KIND);
    }

    /**
     * The credentials to hand to git for this user, if a token is set.
     *
     * @throws WorkspaceException.Conflict {@code CONFLICT} when the stored token cannot be opened (the data
     *                                     directory's secret key changed): set the token again
     */
    public Optional<GitCredentials> credentials(long userId) {
        try {
            return secrets.open(userId, KIND).map(o -> new GitCredentials(
                    o.label() == null ? DEFAULT_USERNAME : o.label(), o.value()));
        } catch (SecretBox.Unreadable e) {
            throw new WorkspaceException.Conflict(ErrorCodes.CONFLICT,
                    "the stored git token cannot be read (the secret key changed); set it again");
        }
    }

    private static boolean printableWithoutSpace(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c <= 0x20 || c == 0x7f || Character.isWhitespace(c) || Character.isISOControl(c)) {
                return false;
            }
        }
        return true;
    }
}
