;; SPDX-License-Identifier: MIT
;;; world.lisp --- the synthetic world and the objects that break dumpers.
;;
;; `dlisp-loadup-scale' (set from --loadup-scale, default 1) copies of a
;; synthetic chunk -- symbols with property lists, strings, vectors,
;; nested lists, hash tables, closures -- so benchmarks can grow the heap
;; roughly linearly.  Then one set of deliberately awkward objects.

(defvar dlisp-world nil
  "The synthetic part of the world: one vector per scale unit.")

(defun world--tree (depth breadth label)
  "A nested list DEPTH levels deep with BREADTH children per node."
  (if (= depth 0)
      (list label)
    (let ((children nil))
      (dotimes (i breadth)
        (push (world--tree (1- depth) breadth (+ (* label breadth) i)) children))
      (cons label children))))

(defun world--text (n words)
  "A pseudo-random sentence of WORDS words, from seed N."
  (let ((vocabulary ["alpha" "beta" "gamma" "delta" "epsilon" "zeta" "eta"
                     "theta" "iota" "kappa" "lambda" "mu" "buffer" "window"
                     "frame" "point" "mark" "region" "kill" "yank"])
        (parts nil) (hi (/ n 65536)) (lo (% n 65536)) (carry 0))
    ;; seed := (seed * 69069 + 1) mod 2^32 with seed = hi * 65536 + lo,
    ;; in 16-bit halves (69069 = 65536 + 3533): every intermediate stays
    ;; below 2^28, inside a fixnum with 4-byte words too, and the words
    ;; chosen are the same with either word size.
    (dotimes (i words)
      (setq carry (+ (* lo 3533) 1))
      (setq hi (% (+ (* hi 3533) lo (/ carry 65536)) 65536))
      (setq lo (% carry 65536))
      (push (aref vocabulary (% hi (length vocabulary))) parts))
    (string-join parts " ")))

(defun world--chunk (n)
  "Build the synthetic chunk number N; return it as a vector."
  (let ((symbols nil) (strings nil) (vectors nil) (tables nil)
        (closures nil) (texts nil))
    (dotimes (j 3000)
      (let ((sym (intern (format "world-%d-symbol-%d" n j))))
        (put sym 'index j)
        (put sym 'chunk n)
        (put sym 'label (format "Symbol %d of chunk %d" j n))
        (set sym (list j (* j j) (symbol-name sym)))
        (push sym symbols)))
    (setq symbols (nreverse symbols))
    (dotimes (j 3000)
      (push (concat "string-" (number-to-string j) "-" (make-string (% j 40) ?a))
            strings))
    (setq strings (sort strings #'string<))
    (dotimes (j 400)
      (push (vconcat (number-sequence j (+ j 23))) vectors))
    (dotimes (j 20)
      (let ((by-symbol (make-hash-table :test 'eq))
            (by-name (make-hash-table :test 'equal))
            (k 0))
        (dolist (sym (take 150 (nthcdr (* j 150) symbols)))
          (puthash sym (list k (get sym 'label)) by-symbol)
          (puthash (symbol-name sym) sym by-name)
          (setq k (1+ k)))
        (push by-symbol tables)
        (push by-name tables)))
    (dotimes (j 800)
      (let ((captured j) (name (nth (% j 3000) symbols)))
        (push (lambda (x) (list name (+ x captured))) closures)))
    (dotimes (j 200)
      (push (world--text (+ (* n 1000) j) 30) texts))
    (vector symbols strings vectors tables closures
            (world--tree 7 3 n) texts
            (word-frequencies (string-join texts " ")))))

(dotimes (n dlisp-loadup-scale)
  (push (world--chunk n) dlisp-world))
(setq dlisp-world (nreverse dlisp-world))

;;; Objects that break dumpers.

(defvar dlisp-torture nil
  "A property list of objects a dumper must get exactly right.")

(defalias 'first #'car)
(defalias 'rest #'cdr)
(defalias 'my-concat (symbol-function 'concat))

(defvar dlisp-self-referential nil
  "A symbol whose value refers to the symbol itself.")
(setq dlisp-self-referential (list 'dlisp-self-referential 'points 'at 'itself))

(let* ((circular (list 'a 'b 'c))
       (shared (list "shared" 'substructure))
       (self-vector (make-vector 3 nil))
       (big-vector (make-vector 160000 nil))
       (big-string (make-string 1200000 ?x))
       (big-multibyte (make-string 300000 ?é))
       (objects-table (make-hash-table :test 'eq))
       (counter 0)
       (counter-closure (lambda () (setq counter (1+ counter)))))
  (setcdr (cddr circular) circular)
  (aset self-vector 0 self-vector)
  (aset self-vector 1 shared)
  (aset self-vector 2 (list shared shared))
  (dotimes (i 160)
    (aset big-vector (* i 1000) (if (evenp i) shared (list i shared))))
  (puthash circular 'circular objects-table)
  (puthash shared 'shared objects-table)
  (puthash self-vector 'self-vector objects-table)
  (puthash 'dlisp-torture 'a-symbol objects-table)
  (puthash "a string key" 'string-identity objects-table)
  (puthash 1.5 'a-float-key objects-table)
  (puthash counter-closure 'closure objects-table)
  (puthash (symbol-function 'car) 'builtin objects-table)
  (puthash 42 'fixnum objects-table)
  (remhash 42 objects-table)
  (funcall counter-closure)
  (setq dlisp-torture
        (list 'circular circular
              'shared shared
              'shared-again shared
              'self-vector self-vector
              'big-vector big-vector
              'big-string big-string
              'big-multibyte big-multibyte
              'empty-string ""
              'empty-string-static dlisp-empty-string
              'empty-vector []
              'multibyte "héllo wörld ✓ 日本語 🎉"
              'floats (list 0.0 -0.0 1.5 -2.25e-10 1.0e+INF -1.0e+INF 0.0e+NaN
                            (/ 0.0 0.0) 1.7976931348623157e+308 5e-324)
              'eq-table objects-table
              'closure counter-closure
              'uninterned (make-symbol "uninterned-symbol")
              'builtin (symbol-function 'car)
              'char-table char-property-table
              'keymap global-map)))
