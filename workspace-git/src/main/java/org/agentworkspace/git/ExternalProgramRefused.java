package org.agentworkspace.git;

/**
 * Thrown from inside JGit when it tries to start a program the repository configured (a filter driver, a local
 * upload-pack or receive-pack, a hook). Caught at the edge of each operation and reported as
 * {@code GIT_UNSAFE_CONFIG}.
 */
final class ExternalProgramRefused extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ExternalProgramRefused() {
        super("the repository configures an external program; the service never runs one", null, false, false);
    }
}
