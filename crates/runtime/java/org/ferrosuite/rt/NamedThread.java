package org.ferrosuite.rt;

/**
 * The superclass {@link Patcher} gives a class that extends {@code Thread}: its constructors
 * without a name take this test's next one from {@link VirtualThreads#name()}, as the worker's
 * rewrite of such a class's {@code super(…)} does; the others are {@code Thread}'s.
 */
public class NamedThread extends Thread {
    /** {@code Thread()}, named. */
    public NamedThread() {
        super(VirtualThreads.name());
    }

    /** {@code Thread(target)}, named. */
    public NamedThread(Runnable target) {
        super(target, VirtualThreads.name());
    }

    /** {@code Thread(group, target)}, named. */
    public NamedThread(ThreadGroup group, Runnable target) {
        super(group, target, VirtualThreads.name());
    }

    /** {@code Thread(name)}. */
    public NamedThread(String name) {
        super(name);
    }

    /** {@code Thread(group, name)}. */
    public NamedThread(ThreadGroup group, String name) {
        super(group, name);
    }

    /** {@code Thread(target, name)}. */
    public NamedThread(Runnable target, String name) {
        super(target, name);
    }

    /** {@code Thread(group, target, name)}. */
    public NamedThread(ThreadGroup group, Runnable target, String name) {
        super(group, target, name);
    }

    /** {@code Thread(group, target, name, stackSize)}. */
    public NamedThread(ThreadGroup group, Runnable target, String name, long stackSize) {
        super(group, target, name, stackSize);
    }
}
