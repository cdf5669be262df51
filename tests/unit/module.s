# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The sections of a kernel module (.text, .init.text, .text.unlikely,
# data), linked by tests.mk with ld -r into an ET_REL with a build ID.
	.text
	.globl	mod_main
	.type	mod_main, @function
mod_main:
	call	mod_cold
	ret
	.size	mod_main, .-mod_main

	.section .init.text,"ax",@progbits
	.globl	init_module
	.type	init_module, @function
init_module:
	xorl	%eax, %eax
	ret
	.size	init_module, .-init_module

	.section .text.unlikely,"ax",@progbits
	.type	mod_cold, @function
mod_cold:
	ret
	.size	mod_cold, .-mod_cold

	.data
	.globl	mod_data
	.type	mod_data, @object
mod_data:
	.long	1
	.size	mod_data, 4

	.section .note.GNU-stack,"",@progbits
