package org.agentworkspace.git;

import java.io.File;
import java.io.InputStream;
import java.io.OutputStream;

import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.util.FS;
import org.eclipse.jgit.util.FS_POSIX;
import org.eclipse.jgit.util.ProcessResult;

/**
 * JGit's file-system abstraction with every way to start a process closed. JGit starts processes only through its
 * {@code FS}: hooks ({@code pre-commit}, {@code commit-msg}, {@code post-commit}, {@code pre-push}, also when
 * {@code core.hooksPath} points elsewhere), clean and smudge filter drivers from {@code .gitattributes} plus config,
 * and a non-default {@code remote.<name>.uploadpack} or {@code receivepack} on a local remote. Hooks report "not
 * present"; anything else throws {@link ExternalProgramRefused}. JGit has no fsmonitor, external diff, textconv,
 * pager, credential-helper or askpass support, so those repository settings are inert already (checked against
 * the JGit 7.8.1 bytecode: every {@code ProcessBuilder} it creates comes from this class, except the
 * {@code GIT_SSH} session, which only the service's own environment can switch on, and the discovery of the
 * system git configuration, which runs the {@code git} found on the service's PATH with fixed arguments).
 *
 * <p>What JGit does with hooks, and why the file system is the place to stop them: {@code CommitCommand} runs
 * {@code pre-commit} and {@code commit-msg} unless {@code setNoVerify(true)} (we set it too), but
 * {@code post-commit} always; {@code PushCommand} runs {@code pre-push}. All go through
 * {@link #runHookIfPresent}, and {@code core.hooksPath} is resolved by {@link #findHook}; both are closed here.
 */
sealed class NoExecFS extends FS_POSIX permits ListOnceFS {

    NoExecFS() {
        super();
    }

    NoExecFS(FS src) {
        super(src);
    }

    @Override
    public FS newInstance() {
        return new NoExecFS(this);
    }

    @Override
    public File findHook(Repository repository, String hookName) {
        return null;
    }

    @Override
    public ProcessResult runHookIfPresent(Repository repository, String hookName, String[] args) {
        return new ProcessResult(ProcessResult.Status.NOT_PRESENT);
    }

    @Override
    public ProcessResult runHookIfPresent(Repository repository, String hookName, String[] args,
                                          OutputStream outRedirect, OutputStream errRedirect, String stdinArgs) {
        return new ProcessResult(ProcessResult.Status.NOT_PRESENT);
    }

    @Override
    protected ProcessResult internalRunHookIfPresent(Repository repository, String hookName, String[] args,
                                                     OutputStream outRedirect, OutputStream errRedirect,
                                                     String stdinArgs) {
        return new ProcessResult(ProcessResult.Status.NOT_PRESENT);
    }

    @Override
    public ProcessBuilder runInShell(String cmd, String[] args) {
        throw new ExternalProgramRefused();
    }

    @Override
    public int runProcess(ProcessBuilder processBuilder, OutputStream outRedirect, OutputStream errRedirect,
                          String stdinArgs) {
        throw new ExternalProgramRefused();
    }

    @Override
    public int runProcess(ProcessBuilder processBuilder, OutputStream outRedirect, OutputStream errRedirect,
                          InputStream inRedirect) {
        throw new ExternalProgramRefused();
    }

    @Override
    public ExecutionResult execute(ProcessBuilder pb, InputStream in) {
        throw new ExternalProgramRefused();
    }
}
