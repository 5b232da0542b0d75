;; SPDX-License-Identifier: MIT
;;; subr.lisp --- basic macros and list utilities of the dlisp prelude.
;;
;; Loaded first by loadup.lisp.  Everything here is plain dlisp: macros
;; built with backquote, list functions written with while loops so deep
;; lists cost no recursion depth.

(defmacro when (cond &rest body)
  "If COND is non-nil, evaluate BODY and return the last value."
  `(if ,cond (progn ,@body)))

(defmacro unless (cond &rest body)
  "If COND is nil, evaluate BODY and return the last value."
  `(if ,cond nil ,@body))

(defmacro push (elt place)
  "Add ELT to the front of the list in variable PLACE."
  `(setq ,place (cons ,elt ,place)))

(defmacro pop (place)
  "Remove and return the first element of the list in variable PLACE."
  `(prog1 (car ,place) (setq ,place (cdr ,place))))

(defmacro incf (place &optional delta)
  "Increment variable PLACE by DELTA (default 1)."
  `(setq ,place (+ ,place ,(or delta 1))))

(defmacro decf (place &optional delta)
  "Decrement variable PLACE by DELTA (default 1)."
  `(setq ,place (- ,place ,(or delta 1))))

(defmacro dolist (spec &rest body)
  "(dolist (VAR LIST [RESULT]) BODY...): run BODY with VAR bound to each element."
  (let ((tail (gensym "tail")))
    `(let ((,tail ,(car (cdr spec))))
       (while ,tail
         (let ((,(car spec) (car ,tail)))
           ,@body)
         (setq ,tail (cdr ,tail)))
       ,(car (cdr (cdr spec))))))

(defmacro dotimes (spec &rest body)
  "(dotimes (VAR COUNT [RESULT]) BODY...): run BODY with VAR from 0 below COUNT."
  (let ((limit (gensym "limit")))
    `(let ((,limit ,(car (cdr spec)))
           (,(car spec) 0))
       (while (< ,(car spec) ,limit)
         ,@body
         (setq ,(car spec) (1+ ,(car spec))))
       ,(car (cdr (cdr spec))))))

(defmacro ignore-errors (&rest body)
  "Evaluate BODY; return nil if it signals an error."
  `(condition-case nil (progn ,@body) (error nil)))

(defmacro with-gensyms (names &rest body)
  "Bind each of NAMES to a fresh uninterned symbol around BODY."
  `(let ,(mapcar (lambda (n) (list n '(gensym))) names) ,@body))

(defun caar (x) "The car of the car of X." (car (car x)))
(defun cadr (x) "The car of the cdr of X." (car (cdr x)))
(defun cdar (x) "The cdr of the car of X." (cdr (car x)))
(defun cddr (x) "The cdr of the cdr of X." (cdr (cdr x)))
(defun caddr (x) "The third element of X." (car (cdr (cdr x))))

(defun identity (x) "Return X." x)
(defun ignore (&rest args) "Ignore ARGS; return nil." nil)

(defun zerop (n) "True if N is zero." (= n 0))
(defun plusp (n) "True if N is positive." (> n 0))
(defun minusp (n) "True if N is negative." (< n 0))
(defun evenp (n) "True if N is even." (= (% n 2) 0))
(defun oddp (n) "True if N is odd." (not (evenp n)))

(defun number-sequence (from to &optional step)
  "The list of numbers from FROM to TO (inclusive) by STEP."
  (let ((step (or step 1)) (result nil) (n from))
    (while (if (> step 0) (<= n to) (>= n to))
      (push n result)
      (setq n (+ n step)))
    (nreverse result)))

(defun filter (pred list)
  "The elements of LIST for which PRED is non-nil, in order."
  (let ((result nil))
    (dolist (x list) (when (funcall pred x) (push x result)))
    (nreverse result)))

(defun remove-if (pred list)
  "The elements of LIST for which PRED is nil, in order."
  (filter (lambda (x) (not (funcall pred x))) list))

(defun remove (elt list)
  "LIST without the elements equal to ELT (a copy)."
  (remove-if (lambda (x) (equal x elt)) list))

(defun reduce (fn list &optional initial)
  "Combine the elements of LIST with FN from the left, starting with INITIAL."
  (let ((acc initial))
    (dolist (x list) (setq acc (funcall fn acc x)))
    acc))

(defun find-if (pred list)
  "The first element of LIST satisfying PRED, or nil."
  (catch 'found
    (dolist (x list) (when (funcall pred x) (throw 'found x)))
    nil))

(defun position (elt list)
  "The index of the first element of LIST equal to ELT, or nil."
  (let ((i 0) (found nil))
    (while (and list (not found))
      (if (equal (car list) elt) (setq found i) (setq i (1+ i)))
      (setq list (cdr list)))
    found))

(defun every (pred list)
  "True if PRED holds for every element of LIST."
  (catch 'fail
    (dolist (x list) (unless (funcall pred x) (throw 'fail nil)))
    t))

(defun some (pred list)
  "The first non-nil value of PRED on the elements of LIST."
  (catch 'hit
    (dolist (x list) (let ((v (funcall pred x))) (when v (throw 'hit v))))
    nil))

(defun take (n list)
  "The first N elements of LIST."
  (let ((result nil))
    (while (and list (> n 0))
      (push (car list) result)
      (setq list (cdr list) n (1- n)))
    (nreverse result)))

(defun flatten (tree)
  "The atoms of TREE, depth first, in a flat list."
  (let ((result nil) (stack (list tree)))
    (while stack
      (let ((x (pop stack)))
        (cond ((null x))
              ((consp x) (push (cdr x) stack) (push (car x) stack))
              (t (push x result)))))
    (nreverse result)))

(defun delete-dups (list)
  "LIST without later duplicates (equal), order kept."
  (let ((seen (make-hash-table :test 'equal)) (result nil))
    (dolist (x list)
      (unless (gethash x seen)
        (puthash x t seen)
        (push x result)))
    (nreverse result)))

(defun alist-get (key alist &optional default)
  "The value of KEY in ALIST (eq), or DEFAULT."
  (let ((pair (assq key alist)))
    (if pair (cdr pair) default)))

(defun plist-put (plist prop value)
  "PLIST with PROP set to VALUE (destructive when PROP is present)."
  (let ((tail plist) (done nil))
    (while (and tail (not done))
      (when (eq (car tail) prop)
        (setcar (cdr tail) value)
        (setq done t))
      (setq tail (cddr tail)))
    (if done plist (append plist (list prop value)))))

(defun hash-table--collect (table fn)
  "The values of FN on each key and value of TABLE, in insertion order."
  (let ((result nil))
    (maphash (lambda (k v) (push (funcall fn k v) result)) table)
    (nreverse result)))

(defun hash-table-keys (table)
  "The keys of TABLE in insertion order."
  (hash-table--collect table (lambda (k v) k)))

(defun hash-table-values (table)
  "The values of TABLE in insertion order."
  (hash-table--collect table (lambda (k v) v)))

(defun mapcan (fn list)
  "Concatenate the lists FN returns for the elements of LIST."
  (apply #'nconc (mapcar fn list)))

(defun mapconcat (fn seq separator)
  "Apply FN to each element of SEQ and join the strings with SEPARATOR."
  (let ((parts nil) (first t))
    (dolist (x (append seq nil))
      (unless first (push separator parts))
      (setq first nil)
      (push (funcall fn x) parts))
    (apply #'concat (nreverse parts))))
