/** The JGit implementation of the VCS SPI; internal, reached only through {@code ServiceLoader}. */
package org.agentworkspace.git;
