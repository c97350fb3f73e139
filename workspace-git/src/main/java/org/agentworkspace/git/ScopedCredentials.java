package org.agentworkspace.git;

import org.agentworkspace.api.vcs.GitCredentials;
import org.agentworkspace.api.vcs.VcsOptions;
import org.eclipse.jgit.errors.UnsupportedCredentialItem;
import org.eclipse.jgit.transport.CredentialItem;
import org.eclipse.jgit.transport.CredentialsProvider;
import org.eclipse.jgit.transport.URIish;

/**
 * Answers a transport's credential request with the caller's {@link GitCredentials}, but only for a user name and
 * password, and only when the remote's origin is one of {@link VcsOptions#credentialOrigins()}. Everything else
 * (including JGit's "skip TLS verification?" questions) is declined. Records whether it was asked and whether it
 * withheld the credentials, so an authentication failure can be explained.
 */
final class ScopedCredentials extends CredentialsProvider {
    private final GitCredentials credentials;
    private final VcsOptions options;
    private boolean asked;
    private boolean withheld;

    ScopedCredentials(GitCredentials credentials, VcsOptions options) {
        this.credentials = credentials;
        this.options = options;
    }

    @Override
    public boolean isInteractive() {
        return false;
    }

    @Override
    public boolean supports(CredentialItem... items) {
        for (CredentialItem item : items) {
            if (!(item instanceof CredentialItem.Username) && !(item instanceof CredentialItem.Password)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean get(URIish uri, CredentialItem... items) throws UnsupportedCredentialItem {
        asked = true;
        if (credentials == null || !allowed(uri) || !supports(items)) {
            withheld = credentials != null;
            return false;
        }
        for (CredentialItem item : items) {
            if (item instanceof CredentialItem.Username username) {
                username.setValue(credentials.username());
            } else if (item instanceof CredentialItem.Password password) {
                password.setValue(credentials.token().toCharArray());
            }
        }
        return true;
    }

    boolean allowed(URIish uri) {
        return uri != null && options.allowsCredentialsFor(uri.getScheme(), uri.getHost(), uri.getPort());
    }

    boolean asked() {
        return asked;
    }

    boolean withheld() {
        return withheld;
    }
}
