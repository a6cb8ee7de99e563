# Boot harness: build pristine kernels, boot them, prove the splat detector.
CHECK_TARGETS += check-boot
MAIN_TARGETS += boot-pristine

.PHONY: check-boot boot-pristine
check-boot:
	@boot-tests/check

# Main job: pristine 6.1 nort-debug and 6.1-rt rt-debug through the smoke test.
boot-pristine:
	@boot-tests/nbh-boot --kernel "$$(scripts/kernel 6.1 nort-debug none | tail -1)" \
		--tests smoke --name 6.1-nort-debug-none-smoke
	@boot-tests/nbh-boot --kernel "$$(scripts/kernel 6.1 rt-debug none | tail -1)" \
		--tests smoke --expect-rt --name 6.1-rt-debug-none-smoke
