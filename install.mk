# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# make install / make uninstall, with PREFIX, LIBDIR... (see Makefile) and
# DESTDIR.  Providers go to $(PROVIDERDIR), the directory the loader (and
# so symprov, and a perf built with SYMPROV_LIBDIR=$(LIBDIR)) searches for
# bare names.

INSTALL ?= install
SCDOC ?= scdoc

MAN_PAGES := $(B)/man/symprov.1 $(B)/man/symprov-provider.7
INSTALLED_PROVIDERS := libdebuginfodprov.so libbuildiddirprov.so
DOCS := README.md LICENSE docs/PERF.md docs/RELIABILITY.md docs/WRITING-A-PROVIDER.md
LICENSE_FILES := $(wildcard LICENSES/*)

$(B)/man/%: man/%.scd
	@mkdir -p $(dir $@)
	$(SCDOC) <$< >$@

man: $(MAN_PAGES)

# The pkg-config file: only the header (a provider links nothing of ours)
# and the directory providers are installed to.
$(B)/symprov.pc: symprov.pc.in FORCE
	@mkdir -p $(dir $@)
	@sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
		-e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@VERSION@|$(VERSION)|' \
		$< >$@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv -f $@.tmp $@

D := $(DESTDIR)

install: all man $(B)/symprov.pc
	$(INSTALL) -d $(D)$(BINDIR) $(D)$(PROVIDERDIR) $(D)$(INCLUDEDIR) \
		$(D)$(PKGCONFIGDIR) $(D)$(MANDIR)/man1 $(D)$(MANDIR)/man7 \
		$(D)$(DOCDIR)/LICENSES $(D)$(DOCDIR)/examples
	$(INSTALL) -m 755 $(B)/bin/symprov $(D)$(BINDIR)/
	$(INSTALL) -m 644 $(addprefix $(B)/lib/,$(INSTALLED_PROVIDERS)) \
		$(D)$(PROVIDERDIR)/
	$(INSTALL) -m 644 include/symprov.h $(D)$(INCLUDEDIR)/
	$(INSTALL) -m 644 $(B)/symprov.pc $(D)$(PKGCONFIGDIR)/
	$(INSTALL) -m 644 $(B)/man/symprov.1 $(D)$(MANDIR)/man1/
	$(INSTALL) -m 644 $(B)/man/symprov-provider.7 $(D)$(MANDIR)/man7/
	$(INSTALL) -m 644 $(DOCS) $(D)$(DOCDIR)/
	$(INSTALL) -m 644 $(LICENSE_FILES) $(D)$(DOCDIR)/LICENSES/
	$(INSTALL) -m 644 provider/example/example_provider.c \
		$(D)$(DOCDIR)/examples/

uninstall:
	rm -f $(D)$(BINDIR)/symprov \
		$(addprefix $(D)$(PROVIDERDIR)/,$(INSTALLED_PROVIDERS)) \
		$(D)$(INCLUDEDIR)/symprov.h $(D)$(PKGCONFIGDIR)/symprov.pc \
		$(D)$(MANDIR)/man1/symprov.1 \
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
