/*
 * Test-only: runs a command line with no stdout handle at all, the way a Windows scheduler
 * or service host can start a console program (STARTF_USESTDHANDLES with a NULL output
 * handle). scripts/check-release.sh uses it under wine to check that payverify.exe refuses
 * to lose its output silently (exit 10) rather than dropping every write. Never shipped.
 *
 * Usage: nostdout.exe PROGRAM [ARGS...]   exits with the program's exit code (or 125).
 */
#include <windows.h>

int main(void)
{
    /* The command line after this program's own name (quoted or not). */
    LPWSTR line = GetCommandLineW();
    if (*line == L'"') {
        line++;
        while (*line && *line != L'"')
            line++;
        if (*line)
            line++;
    } else {
        while (*line && *line != L' ' && *line != L'\t')
            line++;
    }
    while (*line == L' ' || *line == L'\t')
        line++;
    if (!*line)
        return 125;

    STARTUPINFOW startup = {0};
    startup.cb = sizeof startup;
    startup.dwFlags = STARTF_USESTDHANDLES;
    startup.hStdInput = GetStdHandle(STD_INPUT_HANDLE);
    startup.hStdOutput = NULL;
    startup.hStdError = GetStdHandle(STD_ERROR_HANDLE);
    PROCESS_INFORMATION process;
    if (!CreateProcessW(NULL, line, NULL, NULL, TRUE, 0, NULL, NULL, &startup, &process))
        return 125;
    WaitForSingleObject(process.hProcess, INFINITE);
    DWORD code = 125;
    GetExitCodeProcess(process.hProcess, &code);
    return (int)code;
}
