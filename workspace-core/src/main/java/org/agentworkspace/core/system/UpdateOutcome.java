package org.agentworkspace.core.system;

/**
 * What a finished update did.
 *
 * @param updated        whether new code was put in place (false: already up to date)
 * @param installMode    the mode it ran in
 * @param fromVersion    the running version
 * @param toVersion      the version now installed ({@code runtime-dir}; the latest offered when not updated), or null
 * @param fromRevision   the checkout's commit before ({@code git}), or null
 * @param toRevision     the checkout's commit after ({@code git}), or null
 * @param selfRestarting true when the process exits with code 42 right after, for its launcher to start the new code
 * @param message        a sentence for people
 */
public record UpdateOutcome(boolean updated, InstallMode installMode, String fromVersion, String toVersion,
                            String fromRevision, String toRevision, boolean selfRestarting, String message) {
}
