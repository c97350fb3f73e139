package org.agentworkspace.git;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.vcs.VcsErrorCodes;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.Repository;

/**
 * Validation of client-supplied branch and remote names, before any lookup. A branch name is accepted when
 * {@code refs/heads/<name>} passes JGit's {@link Repository#isValidRefName} (git's {@code check-ref-format}
 * rules: no control characters, space, {@code ~ ^ : ? * [ \}, {@code ..}, {@code @{}, leading or trailing or
 * doubled {@code /}, components starting with {@code .} or ending in {@code .lock}, trailing {@code .}; the
 * {@code .lock} rule is enforced on every component here, as git does), and it
 * does not start with {@code -} or {@code +} and is not {@code HEAD} or {@code @}. A remote name must in addition
 * form a valid {@code refs/remotes/<name>/x}, contain no {@code :}, and be configured in the repository (checked
 * by the caller).
 */
final class RefNames {
    /** Longest accepted name. */
    static final int MAX_LENGTH = 255;

    private RefNames() {
    }

    static String requireBranch(String name) {
        if (name == null || name.isEmpty()) {
            throw invalid("a branch name is required");
        }
        if (name.length() > MAX_LENGTH || name.startsWith("-") || name.startsWith("+") || name.equals("HEAD")
                || name.equals("@") || !Repository.isValidRefName(Constants.R_HEADS + name)) {
            throw invalid("not a valid branch name");
        }
        for (String component : name.split("/")) {
            // git refuses a .lock suffix on every component; JGit checks only the last one.
            if (component.endsWith(".lock")) {
                throw invalid("not a valid branch name");
            }
        }
        return name;
    }

    static String requireRemoteName(String name) {
        if (name == null || name.isEmpty() || name.length() > MAX_LENGTH || name.startsWith("-") || name.startsWith("+") || name.indexOf(':') >= 0
                || !Repository.isValidRefName(Constants.R_REMOTES + name + "/x")) {
            throw new WorkspaceException.NotFound(VcsErrorCodes.REMOTE_NOT_FOUND,
                    "not the name of a configured remote");
        }
        return name;
    }

    private static WorkspaceException invalid(String message) {
        return new WorkspaceException.Validation(VcsErrorCodes.INVALID_REF_NAME, message);
    }
}
