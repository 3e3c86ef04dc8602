"""`njit`: the project's numba decorator (numba's `njit(cache=True)`, compiling one overload per argument types
rather than one per literal value, and each function called from jitted code once, as part of its caller;
docs/numba.md).

numba compiles a separate overload of a callee for every literal int it is passed from jitted code (~331
overloads for ~205 functions). None of ours branches on a literal at compile time, so calls from jitted code are
typed with `types.unliteral` arguments: one overload per function; LLVM still sees constants where it inlines.
`njit(int64=True)` passes signed integers as int64 and `njit(readonly=True)` arrays read-only (typing fails if
the function writes one), so that more calls share one overload.

Twin dispatchers. numba finalises every function it compiles on its own: links in the optimised code of all its
callees, optimises that whole module again and emits it as machine code, with a CPython wrapper, even where only
a kernel ever calls it; so a kernel's leaves were optimised and emitted once per level above them (about half of
a cold compile). Each `njit` function therefore has a twin, a second dispatcher over the same Python function
that jitted code calls (numba types the function's global as the twin's): the twin's overloads are typed and
lowered once, their functions optimised one by one, and never module-optimised, emitted or wrapped on their own;
their code is linked into the caller that Python calls (a kernel), which is optimised and emitted once, whole, and
cached (the twin caches the bitcode its callers link, for other processes). Python calls go to the first
dispatcher, which compiles (and caches) a full overload of its own. `inline="always"` asks LLVM to inline (`forceinline`, typed and lowered once) rather than numba (which
copies the callee's IR into each caller and types it there again).

No function is compiled with numba's C-callable wrapper (`no_cfunc_wrapper`): it serves only first-class
function pointers (`cfunc`, `types.FunctionType`), which nothing here uses.
"""

from llvmlite import binding as ll
from numba.core import compiler, types
from numba.core.caching import CompileResultCacheImpl, FunctionCache
from numba.core.codegen import JITCodeLibrary
from numba.core.compiler import CompileResult
from numba.core.dispatcher import _FunctionCompiler
from numba.core.registry import CPUDispatcher


class _UnliteralDispatcher(CPUDispatcher):
    """A CPU dispatcher whose calls from jitted code see unliteral argument types (see the module docstring)."""
    int64 = readonly = False
    twin = None  # the _LeanDispatcher jitted code calls (None: this one)

    @property
    def _numba_type_(self):
        return self.twin._type if self.twin is not None else types.Dispatcher(self)

    def _arg(self, a):
        a = types.unliteral(a)
        if self.int64 and isinstance(a, types.Integer) and a.signed:
            return types.int64
        return a.copy(readonly=True) if self.readonly and isinstance(a, types.Array) else a

    def get_call_template(self, args, kws):
        return super().get_call_template(tuple(self._arg(a) for a in args), {k: self._arg(v) for k, v in kws.items()})


class _LeanLibrary(JITCodeLibrary):
    """A twin overload's code: its functions optimised one by one, then linked as they are (with its callees') into
    the library of each caller, whose module is optimised and emitted once; never finalised on its own."""

    def _ensure_finalized(self):
        pass  # what a caller links is `_get_module_for_linking`'s module; there is nothing to run here

    def _get_module_for_linking(self):
        if self._shared_module is None:
            module, seen = self._final_module, set()
            for library in self._linking_libraries:
                if library not in seen:
                    seen.add(library)
                    module.link_in(library._get_module_for_linking(), preserve=True)
            for fn in module.functions:  # as numba's own: callers may each link it, and inline or drop it
                if not fn.is_declaration and fn.linkage == ll.Linkage.external:
                    fn.linkage = "linkonce_odr"
            self._shared_module = module
        return self._shared_module

    @property
    def has_dynamic_globals(self):
        return any(gv.name.startswith("numba.dynamic.globals") for gv in self._get_module_for_linking().global_variables)

    def serialize_using_object_code(self):
        """What the twin's cache keeps: the module its callers link (there is no object code)."""
        return self.name, "twin", self._get_module_for_linking().as_bitcode()


class _LeanCacheImpl(CompileResultCacheImpl):
    """A twin's overloads in the disk cache, beside (not in place of) its first dispatcher's."""

    def get_filename_base(self, fullname, abiflags):
        return super().get_filename_base(fullname + "-twin", abiflags)

    def rebuild(self, target_context, payload):
        (name, _, bitcode), fndesc, env, signature, objectmode, lifted, typeann, reload_init, envs = payload
        for init in reload_init:
            init()
        library = target_context.codegen().create_library(name)
        library.__class__ = _LeanLibrary
        library._shared_module = ll.parse_bitcode(bitcode)
        library._reload_init.update(reload_init)
        return CompileResult(target_context=target_context, typing_context=target_context.typing_context,
                             library=library, environment=env, entry_point=_CallKey(), fndesc=fndesc,
                             type_annotation=typeann, signature=signature, objectmode=objectmode, lifted=lifted,
                             typing_error=None, call_helper=None, metadata=None, reload_init=reload_init,
                             referenced_envs=envs)


class _LeanCache(FunctionCache):
    _impl_class = _LeanCacheImpl


class _CallerLibrary(JITCodeLibrary):
    """The library of a function Python calls: every function linked into it (twins' code and plain numba
    libraries' alike) is made internal to it before LLVM optimises the module, so that LLVM sees exact definitions
    (it infers no attribute of a `linkonce_odr` function, which another module's copy could replace: the callers'
    code was ~10% slower with them) and the machine code calls only its own copies.

    All, not only twins': a `linkonce_odr` function left in the module (one that came through a plain
    `numba.njit` library, such as a chooser calling a search player) is bound by the JIT linker to the first copy
    of that name already loaded, in another module; mixed with internal copies here, that crashed
    (tests/test_search.py). Kept external: the library's own functions and what is looked up by name (CPython and
    C wrappers, numba's runtime: the `nrt` library and NRT_incref/decref, which other modules may only declare).
    Global variables are never touched (numba sets environments by name)."""

    def _optimize_final_module(self):
        visible = {fn.name for fn in self._final_module.functions
                   if not fn.is_declaration and fn.linkage != ll.Linkage.internal}
        for library in self._linking_libraries:
            if library.name == "nrt":
                continue
            for fn in library._get_module_for_linking().functions:
                if fn.name in visible and not fn.name.startswith(_BY_NAME):  # defined here, linked in
                    self._final_module.get_function(fn.name).linkage = "internal"
        super()._optimize_final_module()


# found by name: CPython and C wrappers (numba), and numba's reference counting, which modules that only declare
# it bind to whichever loaded module exports it
_BY_NAME = ("_ZN7cpython", "cfunc.", "_ZN5cfunc", "NRT_", "nrt_")


class _CallerCompiler(_FunctionCompiler):
    def _compile_core(self, args, return_type):  # numba's, with a _CallerLibrary
        flags = compiler.Flags()
        self.targetdescr.options.parse_as_flags(flags, self.targetoptions)
        flags = self._customize_flags(flags)
        library = self.targetdescr.target_context.codegen().create_library(self.py_func.__qualname__)
        library.__class__ = _CallerLibrary
        library.enable_object_caching()
        cres = compiler.compile_extra(self.targetdescr.typing_context, self.targetdescr.target_context,
                                      self._get_implementation(args, {}), args=args, return_type=return_type,
                                      flags=flags, locals=self.locals, library=library,
                                      pipeline_class=self.pipeline_class)
        if cres.typing_error is not None and not flags.enable_pyobject:
            raise cres.typing_error
        return cres


class _LeanCompiler(_FunctionCompiler):
    def _customize_flags(self, flags):
        flags.no_compile = flags.no_cpython_wrapper = flags.no_cfunc_wrapper = True
        return flags


class _CallKey:
    """What numba's lowering finds a twin overload's call by (a compiled function's address for the others)."""


class _LeanDispatcher(_UnliteralDispatcher):
    """The dispatcher jitted code calls in place of an `njit` function (module docstring): never called from
    Python (its overloads have no entry point); its cache keeps the module its callers link."""

    def enable_caching(self):
        self._cache = _LeanCache(self.py_func)

    def add_overload(self, cres):
        if not isinstance(cres.entry_point, _CallKey):  # compiled, not loaded from the cache
            cres.library.__class__ = _LeanLibrary
            for library in cres.library._linking_libraries:  # a caller takes these over before linking the module
                cres.library._reload_init.update(library._reload_init)
            cres = cres._replace(entry_point=_CallKey())
            self.targetctx.insert_user_function(cres.entry_point, cres.fndesc, [cres.library])
        self.overloads[tuple(cres.signature.args)] = cres


def njit(func=None, *, cache: bool = True, int64: bool = False, readonly: bool = False, **options):
    """`numba.njit(cache=True, **options)` with `_UnliteralDispatcher` and its twin; usable as `@njit` or
    `@njit(...)`. Builds the dispatcher as `numba.core.decorators._jit` does for njit (nopython, default
    boundscheck), without the C-callable wrapper (module docstring)."""

    def wrap(py_func):
        forceinline = options.get("inline") == "always"
        targetoptions = {"nopython": True, "boundscheck": None, "no_cfunc_wrapper": True, **options,
                         "inline": "never"}  # numba inlines nothing of ours: LLVM does (module docstring)
        disp = _UnliteralDispatcher(py_func=py_func, locals={}, targetoptions=targetoptions)
        # forceinline set either way: a flag left unset is inherited from the caller being compiled
        twin = _LeanDispatcher(py_func=py_func, locals={}, targetoptions={**targetoptions, "forceinline": forceinline})
        twin._compiler.__class__ = _LeanCompiler
        disp._compiler.__class__ = _CallerCompiler
        for d in (disp, twin):
            d.int64, d.readonly = int64, readonly
        disp.twin = twin
        disp.typingctx._remove_global(disp)  # jitted code that names `disp` calls `twin`
        disp.typingctx.insert_global(disp, twin._type)
        if cache:
            disp.enable_caching()
            twin.enable_caching()
        return disp

    return wrap if func is None else wrap(func)
