(function(){
document.documentElement.className+=' js';
var each=function(l,f){Array.prototype.forEach.call(l,f);};
each(document.querySelectorAll('table.rows'),function(t){
var tb=t.tBodies[0],rows=Array.prototype.slice.call(tb.rows),ths=t.tHead.rows[0].cells;
each(ths,function(th,i){
var dir=0;th.tabIndex=0;th.title='click to sort';
var go=function(){dir=dir===1?-1:1;var num=th.getAttribute('data-num')==='1';
rows.sort(function(a,b){var x=a.cells[i],y=b.cells[i],r;
if(num){r=(parseFloat(x.getAttribute('data-v'))||0)-(parseFloat(y.getAttribute('data-v'))||0);}
else{r=x.textContent.localeCompare(y.textContent);}
return r*dir||(a.getAttribute('data-i')-b.getAttribute('data-i'));});
rows.forEach(function(r){tb.appendChild(r);});
each(ths,function(h){h.removeAttribute('aria-sort');});
th.setAttribute('aria-sort',dir===1?'ascending':'descending');};
th.addEventListener('click',go);
th.addEventListener('keydown',function(e){if(e.key==='Enter'){go();}});});
var bar=document.createElement('div');bar.className='filter';
bar.innerHTML='<input type="search" placeholder="filter symbols (regular expression)"> <select><option value="">all rows</option><option value="sig">significant</option><option value="worse">significant regressions</option><option value="better">significant improvements</option><option value="noise">within noise</option><option value="untested">untested</option></select> <span class="count"></span>';
t.parentNode.insertBefore(bar,t);
var inp=bar.querySelector('input'),sel=bar.querySelector('select'),cnt=bar.querySelector('span');
var f=function(){var re=null,q=inp.value,k=sel.value,n=0;try{re=new RegExp(q,'i');}catch(e){re=null;}
rows.forEach(function(r){var s=r.cells[0].textContent,kind=r.className;
var ok=(!q||(re?re.test(s):s.indexOf(q)>=0))&&(!k||(k==='sig'?(kind==='worse'||kind==='better'):kind===k));
r.hidden=!ok;if(ok){n++;}});
cnt.textContent=n+' of '+rows.length+' rows';};
inp.addEventListener('input',f);sel.addEventListener('change',f);f();});
})();
