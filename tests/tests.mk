# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Tests: cmocka unit tests, test providers, integration against debuginfod.

TP_DIR := $(B)/tests/providers
# name:cflags of each test provider variant, flags joined by +
TP_VARIANTS := \
	a:-DTP_NAME='"a"' \
	b:-DTP_NAME='"b"' \
	noentry:-DTP_NO_ENTRY \
	abi2:-DTP_ABI_MAJOR=2 \
	initfail:-DTP_INIT_FAIL \
	size0:-DTP_SIZE=0 \
	sizesmall:-DTP_SIZE=24 \
	sizehuge:-DTP_SIZE=100000 \
	newer:-DTP_PAD=64 \
	newerdirty:-DTP_PAD=64+-DTP_PAD_BYTE=1
TP_NAMES := $(foreach v,$(TP_VARIANTS),$(firstword $(subst :, ,$(v))))
TP_LIBS := $(patsubst %,$(TP_DIR)/libtp_%.so,$(TP_NAMES))

tp_cflags = $(subst +, ,$(patsubst $(1):%,%,$(filter $(1):%,$(TP_VARIANTS))))

$(TP_DIR)/libtp_%.so: tests/providers/test_provider.c include/symprov.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(PROV_CFLAGS) $(call tp_cflags,$*) \
		$(ALL_LDFLAGS) $(PROV_LDFLAGS) -o $@ $<

UNIT_TESTS := test_loader test_struct test_buildid test_list test_memo \
	      test_verify
UNIT_BINS := $(patsubst %,$(B)/tests/%,$(UNIT_TESTS))

$(B)/tests/test_loader: $(call obj,tests/unit/test_loader.c $(LOADER_SRCS))
$(B)/tests/test_struct: $(call obj,tests/unit/test_struct.c)
$(B)/tests/test_buildid: $(call obj,tests/unit/test_buildid.c lib/symprov_buildid.c)
$(B)/tests/test_list: $(call obj,tests/unit/test_list.c lib/symprov_list.c)
$(B)/tests/test_memo: $(call obj,tests/unit/test_memo.c provider/debuginfod/dip_memo.c)
$(B)/tests/test_verify: $(call obj,tests/unit/test_verify.c provider/debuginfod/dip_verify.c)
# test_verify checks its own, known, build ID.
TEST_VERIFY_BUILD_ID := 0123456789abcdef0123456789abcdef01234567
$(B)/tests/test_verify: EXTRA_LDFLAGS := -Wl,--build-id=0x$(TEST_VERIFY_BUILD_ID)
$(call obj,tests/unit/test_verify.c): \
	ALL_CPPFLAGS += -DTEST_BUILD_ID='"$(TEST_VERIFY_BUILD_ID)"'

$(UNIT_BINS):
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) $(EXTRA_LDFLAGS) -o $@ $^ -lcmocka -ldl -lpthread \
		-ldw -lelf

# The concurrency driver of the integration tests.
$(B)/tests/concurrent_find: $(call obj,tests/integration/concurrent_find.c $(LOADER_SRCS) lib/symprov_buildid.c)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ -ldl -lpthread

TEST_DEPS := all $(TP_LIBS) $(UNIT_BINS) $(B)/tests/concurrent_find

check-unit: $(TEST_DEPS)
	@$(PYTHON) tests/run_unit.py $(B) $(UNIT_TESTS)

check-integration: $(TEST_DEPS)
	@$(PYTHON) tests/integration/test_debuginfod.py --build $(B)

# The tests of one build ($(B)).
test: check-unit check-integration

# Everything: the plain build, then the same tests under ASan+UBSan.
check: test
ifneq ($(SAN),1)
	$(MAKE) SAN=1 test
endif

.PHONY: check test check-unit check-integration

$(call obj,tests/unit/test_memo.c tests/unit/test_verify.c): \
	ALL_CPPFLAGS += -Iprovider/debuginfod
