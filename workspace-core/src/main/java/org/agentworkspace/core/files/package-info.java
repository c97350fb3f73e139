/**
 * Project files and host folder browsing, confined by one helper, {@link org.agentworkspace.core.files.PathGuard};
 * and the git access that reuses it ({@link org.agentworkspace.core.files.GuardedVcs},
 * {@link org.agentworkspace.core.files.VcsProviders}).
 */
package org.agentworkspace.core.files;
