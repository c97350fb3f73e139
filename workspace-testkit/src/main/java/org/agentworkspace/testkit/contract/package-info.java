/** The black-box contract suite: runs against the embedded server in the build, or any deployment by URL. */
package org.agentworkspace.testkit.contract;
