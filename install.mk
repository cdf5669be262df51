# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# make install / make uninstall, with PREFIX, LIBDIR... (see Makefile) and
# DESTDIR.  libsymprov.so.1 goes to $(LIBDIR), the providers to
# $(PROVIDERDIR), $(LIBDIR)/symprov, where libsymprov (and so symprov and
# perf) looks for bare names.  Run ldconfig after an install to a LIBDIR
# the dynamic loader caches, such as /usr/local/lib.

INSTALL ?= install
SCDOC ?= scdoc

MAN_PAGES := $(B)/man/symprov.1 $(B)/man/symprov-provider.7 $(B)/man/libsymprov.3
INSTALLED_PROVIDERS := libdebuginfodprov.so libbuildiddirprov.so
DOCS := README.md NEWS LICENSE docs/PERF.md docs/RELIABILITY.md docs/WRITING-A-PROVIDER.md
LICENSE_FILES := $(wildcard LICENSES/*)

$(B)/man/%: man/%.scd
	@mkdir -p $(dir $@)
	$(SCDOC) <$< >$@

man: $(MAN_PAGES)

# The pkg-config file: the headers, -lsymprov for a host (a provider
# links nothing), and the directory providers are installed to.
$(B)/symprov.pc: symprov.pc.in FORCE
	@mkdir -p $(dir $@)
	@sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
		-e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@VERSION@|$(VERSION)|' \
		$< >$@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv -f $@.tmp $@

D := $(DESTDIR)
HEADERS := include/libsymprov.h include/symprov.h

# The installed command finds libsymprov where the dynamic loader looks,
# without the build tree's rpath.
$(B)/install/symprov: $(call obj,$(SYMPROV_CMD_SRCS)) | $(LIBSYMPROV)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LINK_LIBSYMPROV) $(SYMPROV_CMD_LIBS)

install: all man $(B)/symprov.pc $(B)/install/symprov
	$(INSTALL) -d $(D)$(BINDIR) $(D)$(PROVIDERDIR) $(D)$(INCLUDEDIR) \
		$(D)$(PKGCONFIGDIR) $(D)$(MANDIR)/man1 $(D)$(MANDIR)/man3 \
		$(D)$(MANDIR)/man7 \
		$(D)$(DOCDIR)/LICENSES $(D)$(DOCDIR)/examples
	$(INSTALL) -m 755 $(B)/install/symprov $(D)$(BINDIR)/
	$(INSTALL) -m 644 $(B)/lib/$(LIBSYMPROV_REAL) $(D)$(LIBDIR)/
	ln -sf $(LIBSYMPROV_REAL) $(D)$(LIBDIR)/$(LIBSYMPROV_SONAME)
	ln -sf $(LIBSYMPROV_SONAME) $(D)$(LIBDIR)/libsymprov.so
	$(INSTALL) -m 644 $(addprefix $(B)/lib/,$(INSTALLED_PROVIDERS)) \
		$(D)$(PROVIDERDIR)/
	$(INSTALL) -m 644 $(HEADERS) $(D)$(INCLUDEDIR)/
	$(INSTALL) -m 644 $(B)/symprov.pc $(D)$(PKGCONFIGDIR)/
	$(INSTALL) -m 644 $(B)/man/symprov.1 $(D)$(MANDIR)/man1/
	$(INSTALL) -m 644 $(B)/man/libsymprov.3 $(D)$(MANDIR)/man3/
	$(INSTALL) -m 644 $(B)/man/symprov-provider.7 $(D)$(MANDIR)/man7/
	$(INSTALL) -m 644 $(DOCS) $(D)$(DOCDIR)/
	$(INSTALL) -m 644 $(LICENSE_FILES) $(D)$(DOCDIR)/LICENSES/
	$(INSTALL) -m 644 provider/example/example_provider.c \
		$(D)$(DOCDIR)/examples/

uninstall:
	rm -f $(D)$(BINDIR)/symprov \
		$(addprefix $(D)$(LIBDIR)/,$(LIBSYMPROV_REAL) \
			$(LIBSYMPROV_SONAME) libsymprov.so) \
		$(addprefix $(D)$(PROVIDERDIR)/,$(INSTALLED_PROVIDERS)) \
		$(addprefix $(D)$(INCLUDEDIR)/,$(notdir $(HEADERS))) \
		$(D)$(PKGCONFIGDIR)/symprov.pc \
		$(D)$(MANDIR)/man1/symprov.1 \
		$(D)$(MANDIR)/man3/libsymprov.3 \
		$(D)$(MANDIR)/man7/symprov-provider.7 \
		$(addprefix $(D)$(DOCDIR)/,$(notdir $(DOCS))) \
		$(addprefix $(D)$(DOCDIR)/LICENSES/,$(notdir $(LICENSE_FILES))) \
		$(D)$(DOCDIR)/examples/example_provider.c
	-rmdir $(D)$(DOCDIR)/LICENSES $(D)$(DOCDIR)/examples $(D)$(DOCDIR) \
		$(D)$(PROVIDERDIR) 2>/dev/null

# What make install gives a site: the files, pkg-config, an out-of-tree
# provider (docs/WRITING-A-PROVIDER.md's), bare names found in
# $(PROVIDERDIR) by symprov and perf (root, for a private mount namespace).
check-install: all perf
	@$(PYTHON) tests/install/test_install.py --build $(B)

# debian/: the package builds, holds what it should, finds its providers.
check-deb:
	@$(PYTHON) tests/install/test_deb.py

.PHONY: install uninstall man check-install check-deb
