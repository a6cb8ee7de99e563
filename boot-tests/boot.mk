# Boot harness: boot kernels through the smoke test, prove the splat detector.
#
#   make check-boot        (in make check) the harness on the patched
#                          kernels that make check builds anyway
#   make check-pristine    the same on the pristine kernels: two more
#                          debug kernel builds, out of make check for time
#   make boot-pristine     (main job) pristine kernels, smoke test only
CHECK_TARGETS += check-boot
MAIN_TARGETS += boot-pristine

.PHONY: check-boot check-pristine boot-pristine
check-boot:
	@boot-tests/check $(SERIES_BEYOND) $(SERIES_NO_BH_LOCK)

check-pristine:
	@boot-tests/check none

boot-pristine:
	@boot-tests/nbh-boot --kernel "$$(scripts/kernel 6.1 nort-debug none)" \
		--tests smoke --name 6.1-nort-debug-none-smoke
	@boot-tests/nbh-boot --kernel "$$(scripts/kernel 6.1 rt-debug none)" \
		--tests smoke --expect-rt --name 6.1-rt-debug-none-smoke
