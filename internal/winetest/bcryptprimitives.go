package winetest

// bcryptPrimitivesC is a stand-in for Windows' bcryptprimitives.dll, for
// Wine before 9.0, which lacks it: Go's Windows runtime (Go 1.24 and
// later) loads it at start-up for ProcessPrng, its source of random
// bytes, and stops without it. ProcessPrng fills data with len random
// bytes and returns TRUE; this one takes them from RtlGenRandom (advapi32
// SystemFunction036), which Wine has. New builds it with
// x86_64-w64-mingw32-gcc into the test's own prefix.
const bcryptPrimitivesC = `#include <windows.h>
#define SystemFunction036 NTAPI SystemFunction036
#include <ntsecapi.h>
#undef SystemFunction036

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
	while (len > 0) {
		ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;
		if (!RtlGenRandom(data, n))
			return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}
`
