/*
 * Test-only stand-in for Windows' bcryptprimitives.dll, which Debian's wine 8 lacks.
 *
 * Rust's standard library on Windows draws its randomness (HashMap keys) from
 * bcryptprimitives.dll's ProcessPrng, so without this DLL payverify.exe cannot start under
 * wine. scripts/check-release.sh builds it with mingw and puts it beside the exe it runs
 * under wine; it is never shipped: real Windows (10 and later) has the real DLL.
 *
 * ProcessPrng is answered from advapi32's SystemFunction036 (RtlGenRandom), wine's own
 * random source.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG chunk = length > 0x40000000 ? 0x40000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
