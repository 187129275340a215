package org.ferrosuite.rt;

import java.net.URL;
import java.net.URLClassLoader;

/**
 * The class loader of the execution host's worker JVM. Classes of the user's class path are
 * defined from bytes the host supplies through the native {@link #fetch} (instrumented and
 * sandboxed by ferrosuite); everything else (the JDK, the probe runtime) comes from the parent.
 * Resources are found on the user's class path through {@link URLClassLoader}.
 *
 * <p>User classes are looked up first (child-first), so that a class present both on the user's
 * class path and elsewhere is always the instrumented one.
 */
public final class HostLoader extends URLClassLoader {
    static {
        ClassLoader.registerAsParallelCapable();
    }

    /** Opaque pointer to the worker's Rust state, passed back to {@link #fetch}. */
    private final long handle;

    public HostLoader(URL[] urls, ClassLoader parent, long handle) {
        super(urls, parent);
        this.handle = handle;
    }

    /** The bytes to define for a class (binary name), or null when the host has none. */
    private static native byte[] fetch(long handle, String name);

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        synchronized (getClassLoadingLock(name)) {
            Class<?> c = findLoadedClass(name);
            if (c == null) {
                if (name.startsWith("java.") || name.startsWith("org.ferrosuite.rt.")) {
                    return getParent().loadClass(name);
                }
                if (isTool(name)) {
                    // The worker's own Mockito, when it has one: the mocks it makes must be
                    // of the classes this loader defines, whatever the user's class path holds.
                    try {
                        return getParent().loadClass(name);
                    } catch (ClassNotFoundException e) {
                        // Not a tool of the worker: the user's, then.
                    }
                }
                byte[] bytes = fetch(handle, name);
                if (bytes == null) {
                    return getParent().loadClass(name);
                }
                c = defineClass(name, bytes, 0, bytes.length);
            }
            if (resolve) {
                resolveClass(c);
            }
            return c;
        }
    }

    /** Mockito and the libraries it needs, which the worker may bring itself. */
    private static boolean isTool(String name) {
        return name.startsWith("org.mockito.")
                || name.startsWith("net.bytebuddy.")
                || name.startsWith("org.objenesis.");
    }

    /** Never defines classes from the raw class path: only {@link #fetch} does. */
    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
        throw new ClassNotFoundException(name);
    }
}
