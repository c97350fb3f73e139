/** Git operations through JGit. Exports nothing: reached through the SPI only. */
module org.agentworkspace.git {
    requires org.agentworkspace.api;
    requires org.eclipse.jgit;
    requires org.slf4j;
    requires com.googlecode.javaewah;
    requires org.apache.commons.codec;

    provides org.agentworkspace.api.vcs.VcsFactory with org.agentworkspace.git.JGitVcsFactory;
}
