/**
 * Updating the service itself: in {@code runtime-dir} mode a package named by a manifest is downloaded, verified,
 * unpacked next to the versions already installed and made {@code current} with one atomic rename; in {@code git}
 * mode the source checkout is fast-forwarded to its upstream. Either way the result tells the caller whether the
 * process should now exit with {@link SystemUpdater#RESTART_EXIT_CODE} so its launcher starts the new code. No
 * HTTP server type appears here: the server maps a job's events onto a stream (docs/system-update.md).
 */
package org.agentworkspace.core.system;
