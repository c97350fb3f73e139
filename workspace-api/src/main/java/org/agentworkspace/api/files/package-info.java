/**
 * Records and rules of the project file API: entries, contents, the host folder browser, and {@link
 * org.agentworkspace.api.files.RelativePath}, the one syntax every project-relative path must pass.
 */
package org.agentworkspace.api.files;
